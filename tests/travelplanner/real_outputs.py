"""Real model outputs for TravelPlanner's validation queries, and how strict judges the ones official passes.

The fixture (``data/real_outputs/``, provenance and licences in its README) holds plans that models wrote for the
validation split, as their authors published them. ``measure`` checks each plan in both modes and gathers every
verdict official passes and strict fails, by the category of strict's reason (``checks/categories.py``) and by
check, and the plans official passes and strict fails. docs/testing.md shows these counts; the core suite's
``test_real_outputs.py`` holds them to ``counts.json`` and the form category to empty.

    .venv/bin/python -m tests.travelplanner.real_outputs counts            # the table of docs/testing.md
    .venv/bin/python -m tests.travelplanner.real_outputs counts --write    # ... and counts.json
    .venv/bin/python -m tests.travelplanner.real_outputs counts --extra DIR/*.jsonl   # other outputs, not kept
    .venv/bin/python -m tests.travelplanner.real_outputs build --evoagent ZIP --upstream JSONL   # the fixture
"""

from __future__ import annotations

import argparse
import io
import json
import lzma
import re
import shutil
import sys
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planshape.validators.travelplanner.checks.categories import CATEGORIES
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.query import Query
from planshape.validators.travelplanner.store.database import FILES, load_database

from tests.shared_data import SHARED

DATA = Path(__file__).parent / "data" / "real_outputs"
PLANS = DATA / "plans.jsonl.xz"
COUNTS = DATA / "counts.json"
VALIDATION = SHARED / "validation"
_NAME = re.compile(r"validation_(?P<model>.+?)_(?P<method>[a-z]+(?:_\d_[a-z]+)?)_sole-planning_submission\.jsonl$")


def validation_database(directory: Path) -> Path:
    """The shared database with the validation flights table in place of the train one, built in ``directory``
    (links to the shared files; ``../shared`` itself is never written)."""
    root = directory / "validation-database"
    for key, relative in FILES.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if key == "flights":
            shutil.copyfile(VALIDATION / "clean_Flights_2022.csv", target)
        elif not target.exists():
            target.symlink_to(SHARED / "database" / relative)
    return root


def validation_queries() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (VALIDATION / "queries.jsonl").read_text().splitlines()]


def load() -> list[dict[str, Any]]:
    """The fixture's plans: ``{"idx": validation query (0-based), "plan": [...], "sources": [...]}``."""
    with lzma.open(PLANS, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@dataclass
class Measure:
    """Verdicts official passes and strict fails, counted by category and by (check, category), and the plans
    official passes that strict fails, with strict's failing verdicts."""

    plans: int = 0
    official_pass: int = 0
    both_pass: int = 0
    by_category: Counter = field(default_factory=Counter)
    by_check: Counter = field(default_factory=Counter)
    uncategorised: list[tuple[int, str, str]] = field(default_factory=list)
    strict_only: list[tuple[int, list[str], dict[str, tuple[str, str | None]]]] = field(default_factory=list)

    def counts(self) -> dict[str, Any]:
        return {"plans": self.plans, "official_pass": self.official_pass, "both_pass": self.both_pass,
                "verdicts": sum(self.by_category.values()),
                "by_category": {c: self.by_category.get(c, 0) for c in CATEGORIES},
                "by_check": {f"{check}: {category}": n for (check, category), n in sorted(self.by_check.items())}}


def measure(rows: list[dict[str, Any]], store: Any, queries: list[dict[str, Any]]) -> Measure:
    out = Measure()
    parsed = {i: Query.model_validate({k: v for k, v in q.items() if k not in ("flights_in_table", "source")})
              for i, q in enumerate(queries)}
    for row in rows:
        query, plan = parsed[row["idx"]], row["plan"]
        official = check_plan(plan, query, store, "official")
        strict = check_plan(plan, query, store, "strict")
        out.plans += 1
        strict_verdicts = {**strict.commonsense, **(strict.hard or {})}
        for key, verdict in {**official.commonsense, **(official.hard or {})}.items():
            mine = strict_verdicts.get(key)
            if verdict.passed and mine is not None and mine.status.value == "fail":
                out.by_category[mine.category] += 1
                out.by_check[(key, mine.category)] += 1
                if mine.category is None:
                    out.uncategorised.append((row["idx"], key, mine.reason))
        if official.final_pass:
            out.official_pass += 1
            if strict.final_pass:
                out.both_pass += 1
            else:
                failed = {k: (v.reason, v.category) for k, v in strict_verdicts.items() if v.status.value == "fail"}
                out.strict_only.append((row["idx"], row.get("sources", []), failed))
    return out


def table(result: Measure) -> str:
    """The counts as docs/testing.md shows them."""
    counts = result.counts()
    lines = [f"{counts['plans']} plans; official passes {counts['official_pass']}, strict passes "
             f"{counts['both_pass']} of them; {counts['verdicts']} check verdicts official passes and strict fails.",
             "", "| category | verdicts |", "|---|---|"]
    lines += [f"| {c} | {n} |" for c, n in counts["by_category"].items()]
    lines += ["", "| check | category | verdicts |", "|---|---|---|"]
    lines += [f"| `{k.split(': ')[0]}` | {k.split(': ')[1]} | {n} |" for k, n in counts["by_check"].items()]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- building the fixture


def _sources(evoagent_zip: Path, upstream: Path) -> list[tuple[str, list[dict[str, Any]]]]:
    """(label, plans) of every output file: EvoAgent's results archive, and upstream's example outputs."""
    out = []
    with zipfile.ZipFile(evoagent_zip) as archive:
        for name in sorted(archive.namelist()):
            m = _NAME.search(name)
            if m is None:
                continue
            setting = name.split("final_result/", 1)[1].rsplit("/", 1)[0]
            label = f"evoagent:{m['model']}:{setting}/{m['method']}"
            lines = io.TextIOWrapper(archive.open(name), encoding="utf-8").read().splitlines()
            out.append((label, [json.loads(line) for line in lines if line.strip()]))
    out.append(("upstream:example", [json.loads(line) for line in upstream.read_text().splitlines() if line.strip()]))
    return out


def build(evoagent_zip: Path, upstream: Path) -> list[dict[str, Any]]:
    """The fixture's rows: each distinct (query, plan) once with every source that wrote it, for the validation
    queries whose flights the shared table holds (for the others a flight's date could fail for the table's gap)."""
    queries = validation_queries()
    rows: dict[tuple[int, str], dict[str, Any]] = {}
    for label, records in _sources(evoagent_zip, upstream):
        for record in records:
            idx = record["idx"] - 1  # the published files number the queries from 1
            if queries[idx]["query"] != record["query"]:
                raise ValueError(f"{label}: record {record['idx']} is not validation query {idx}")
            if not queries[idx]["flights_in_table"]:
                continue
            key = (idx, json.dumps(record["plan"], sort_keys=True, ensure_ascii=False))
            rows.setdefault(key, {"idx": idx, "plan": record["plan"], "sources": []})["sources"].append(label)
    return sorted(rows.values(), key=lambda r: (r["idx"], r["sources"][0]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the fixture from the published files")
    b.add_argument("--evoagent", type=Path, required=True, help="siyuyuan/evoagent: travelplanner_exp_result.zip")
    b.add_argument("--upstream", type=Path, required=True, help="OSU-NLP-Group/TravelPlanner: example_evaluation.jsonl")
    c = sub.add_parser("counts", help="check every plan in both modes and print the counts")
    c.add_argument("--write", action="store_true", help="also write counts.json")
    c.add_argument("--extra", nargs="*", type=Path, default=[], help="more output files (submission JSONL)")
    c.add_argument("--plans", action="store_true", help="also list the plans official passes and strict fails")
    args = ap.parse_args(argv)
    if args.command == "build":
        rows = build(args.evoagent, args.upstream)
        DATA.mkdir(parents=True, exist_ok=True)
        with lzma.open(PLANS, "wt", encoding="utf-8", preset=9) as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        print(f"{len(rows)} plans -> {PLANS} ({PLANS.stat().st_size / 1e6:.2f} MB)")
        return 0
    import tempfile

    queries = validation_queries()
    rows = load() if not args.extra else []
    for path in args.extra:
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if queries[record["idx"] - 1]["flights_in_table"]:
                rows.append({"idx": record["idx"] - 1, "plan": record["plan"], "sources": [path.name]})
    with tempfile.TemporaryDirectory() as tmp:
        result = measure(rows, load_database(validation_database(Path(tmp))), queries)
    print(table(result))
    if args.plans:
        for idx, sources, failed in result.strict_only:
            print(f"\nquery {idx} ({', '.join(sources[:3])}{' ...' if len(sources) > 3 else ''})")
            for key, (reason, category) in failed.items():
                print(f"  {key} [{category}]: {reason}")
    if args.write:
        COUNTS.write_text(json.dumps(result.counts(), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
