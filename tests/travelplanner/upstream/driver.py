"""Run the upstream TravelPlanner evaluator's own functions on a file of plans (issue 30).

Runs under the upstream environment's Python (its README's 3.9 with its pinned pandas), not planshape's: it
imports nothing of planshape, only the standard library and the upstream checkout's ``evaluation``, ``tools``
and ``utils`` modules, which it copies into a scratch folder beside a link to the database (upstream opens
``../database/...`` relative to ``evaluation/`` and changes directory there at import, so the checkout itself
is left as it is). ``record.py`` calls it; it is not a test.

Each plan is evaluated as ``evaluation/eval.py`` does: the commonsense ``evaluation`` on a delivered plan, then
the hard ``evaluation`` only when ``is_not_absent`` and ``is_valid_information_in_sandbox`` hold. An exception
from either (upstream's whole run would stop there) is recorded as a crash with its type, message and stage.

    python driver.py UPSTREAM DATABASE TRAIN_CSV PLANS_JSONL OUT_JSONL
"""

from __future__ import annotations

import ast
import csv
import json
import os
import shutil
import sys
import tempfile
import traceback

INT_FIELDS = ("days", "visiting_city_number", "people_number", "budget")  # typed so by the Hub's loader


def queries(train_csv):
    """The train rows as ``eval.py`` hands them to the checks: ints typed, ``local_constraint`` parsed."""
    with open(train_csv, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        for key in INT_FIELDS:
            row[key] = int(row[key])
        row["local_constraint"] = ast.literal_eval(row["local_constraint"])  # eval.py uses eval on this literal
    return rows


def scratch_copy(upstream, database):
    """A scratch folder with copies of upstream's code folders and a link named ``database``."""
    root = tempfile.mkdtemp(prefix="upstream-tp-")
    for part in ("evaluation", "tools", "utils"):
        shutil.copytree(os.path.join(upstream, part), os.path.join(root, part))
    os.symlink(os.path.abspath(database), os.path.join(root, "database"))
    return root


def load_upstream(root):
    """Import the two evaluator modules as ``eval.py`` does (cwd ``evaluation/``, its parent on the path)."""
    os.chdir(os.path.join(root, "evaluation"))
    sys.path[:0] = [os.path.join(root, "evaluation"), root]
    import commonsense_constraint
    import hard_constraint

    return commonsense_constraint.evaluation, hard_constraint.evaluation


def verdict(result):
    """``{key: True | False | None}`` of an upstream result dict (each value is a ``(bool | None, msg)`` pair)."""
    return {key: value[0] if value[0] is None else bool(value[0]) for key, value in result.items()}


def evaluate(commonsense_eval, hard_eval, query, plan):
    out = {"delivered": bool(plan), "commonsense": None, "hard": None}
    if not plan:
        return out
    stage = "commonsense"
    try:
        commonsense = commonsense_eval(query, plan)
        out["commonsense"] = verdict(commonsense)
        if commonsense["is_not_absent"][0] and commonsense["is_valid_information_in_sandbox"][0]:
            stage = "hard"
            out["hard"] = verdict(hard_eval(query, plan))
    except Exception as exc:  # upstream's run would stop here: recorded, planshape gives a failing verdict
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        out["crash"] = {"stage": stage, "exception": type(exc).__name__, "message": str(exc)[:200],
                        "where": f"{os.path.basename(frame.filename)}:{frame.name}"}
    return out


def main(upstream, database, train_csv, plans_jsonl, out_jsonl):
    rows = queries(train_csv)
    with open(plans_jsonl, encoding="utf-8") as handle:
        plans = [json.loads(line) for line in handle if line.strip()]
    out_jsonl = os.path.abspath(out_jsonl)
    root = scratch_copy(upstream, database)
    try:
        commonsense_eval, hard_eval = load_upstream(root)
        with open(out_jsonl, "w", encoding="utf-8") as out:
            for item in plans:
                query = dict(rows[item["row"]])
                query["local_constraint"] = dict(query["local_constraint"])
                result = evaluate(commonsense_eval, hard_eval, query, item["plan"])
                out.write(json.dumps({"key": item["key"], **result}) + "\n")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__.rsplit("\n\n", 1)[-1])
    main(*sys.argv[1:])
