"""Record the upstream evaluator's verdicts on the replay set (``mutations.py`` over the 45 train gold plans).

The replay test (``test_official_replay.py``) compares planshape's official mode with what this writes to
``tests/travelplanner/data/upstream_verdicts.json``: the verdicts of OSU-NLP-Group/TravelPlanner's own
``evaluation`` functions, run by ``driver.py`` in upstream's environment, with their provenance. Only the
verdicts are committed, never upstream's code. To regenerate, with a checkout of upstream and a Python that has
its pinned pandas (``requirements.txt``: pandas==2.0.1; ``utils/func.py`` also imports gradio==3.50.2)::

    python3.9 -m venv /tmp/upstream-venv
    /tmp/upstream-venv/bin/pip install pandas==2.0.1 numpy==1.24.3 gradio==3.50.2 tqdm requests
    .venv/bin/python -m tests.travelplanner.upstream.record --upstream /tmp/upstream-tp \\
        --python /tmp/upstream-venv/bin/python [--commit SHA]

``--commit`` names the upstream commit when the checkout has no ``.git`` (e.g. a ``git archive`` export).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from planshape.validators.travelplanner.checks.registry import COMMONSENSE, HARD
from planshape.validators.travelplanner.query import Query, gold_plan, read_records
from planshape.validators.travelplanner.store.database import load_database

from ..mutations import mutations

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SHARED = REPO.parent / "shared" / "travelplanner"
OUT = HERE.parent / "data" / "upstream_verdicts.json"
KEYS = tuple(c.key for c in (*COMMONSENSE, *HARD))
LEGEND = ("one letter per check in `checks` order: p pass (True), f fail (False), n not applicable (None), "
          "- not run (eval.py runs the hard checks only when is_not_absent and is_valid_information_in_sandbox "
          "pass); a plan on which upstream raised is 13 x, with the exception in `crashes`")


def replay_set(shared: Path = SHARED) -> Iterator[tuple[str, int, list[dict[str, Any]]]]:
    """``(key, train row, mutated plan)`` for every plan of the replay set, in a fixed order."""
    database = load_database(shared / "database")
    for k, record in enumerate(read_records(shared / "train.csv")):
        query = Query.from_record(record)
        for name, _, plan in mutations(gold_plan(record), query.days, database):
            yield f"{k}/{name}", k, plan


def plans_digest(items: list[tuple[str, int, list[dict[str, Any]]]]) -> str:
    """sha256 of the replay set as JSON: the replay test refuses verdicts recorded for other plans."""
    text = json.dumps([[key, row, plan] for key, row, plan in items], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code(result: dict[str, Any]) -> str:
    if "crash" in result:
        return "x" * len(KEYS)
    values = {**(result["commonsense"] or {}), **(result["hard"] or {})}
    return "".join("-" if key not in values else "n" if values[key] is None else "p" if values[key] else "f"
                   for key in KEYS)


def _environment(python: str) -> dict[str, str]:
    probe = ("import json, sys, pandas, numpy, gradio; print(json.dumps({'python': sys.version.split()[0], "
             "'pandas': pandas.__version__, 'numpy': numpy.__version__, 'gradio': gradio.__version__}))")
    return json.loads(subprocess.run([python, "-c", probe], check=True, capture_output=True, text=True).stdout)


def _commit(upstream: Path, given: str | None) -> str:
    if given:
        return given
    done = subprocess.run(["git", "-C", str(upstream), "rev-parse", "HEAD"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{upstream} is not a git checkout: name its upstream commit with --commit")
    return done.stdout.strip()


def _database_digest(database: Path) -> dict[str, str]:
    return {str(p.relative_to(database)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(database.rglob("*")) if p.is_file()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", type=Path, required=True, help="a checkout of OSU-NLP-Group/TravelPlanner")
    parser.add_argument("--python", required=True, help="the upstream environment's Python (pandas==2.0.1)")
    parser.add_argument("--commit", help="the upstream commit, when the checkout has no .git")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the folder with train.csv and database/")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    items = list(replay_set(args.shared))
    with tempfile.TemporaryDirectory() as scratch:
        plans, results = Path(scratch) / "plans.jsonl", Path(scratch) / "verdicts.jsonl"
        plans.write_text("".join(json.dumps({"key": key, "row": row, "plan": plan}) + "\n"
                                 for key, row, plan in items), encoding="utf-8")
        command = [args.python, str(HERE / "driver.py"), str(args.upstream.resolve()),
                   str((args.shared / "database").resolve()), str((args.shared / "train.csv").resolve()),
                   str(plans), str(results)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        recorded = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert [r["key"] for r in recorded] == [key for key, _, _ in items], "the driver lost or reordered plans"
    record = {
        "provenance": {
            "evaluator": "OSU-NLP-Group/TravelPlanner evaluation/commonsense_constraint.py and hard_constraint.py "
                         "`evaluation`, gated as evaluation/eval.py gates them",
            "upstream_commit": _commit(args.upstream, args.commit),
            **_environment(args.python),
            "command": "python -m tests.travelplanner.upstream.record --upstream UPSTREAM --python PYTHON",
            "database_sha256": _database_digest(args.shared / "database"),
            "plans": len(items),
            "plans_sha256": plans_digest(items),
        },
        "checks": list(KEYS),
        "legend": LEGEND,
        "verdicts": {r["key"]: code(r) for r in recorded},
        "crashes": {r["key"]: r["crash"] for r in recorded if "crash" in r},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    crashed = len(record["crashes"])
    print(f"{len(items)} plans recorded to {args.out} ({crashed} upstream crashes)", file=sys.stderr)


if __name__ == "__main__":
    main()
