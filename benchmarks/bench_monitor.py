"""The reward-hacking monitor's cost: a strict score with the monitor vs a strict-only score, same run.

    python benchmarks/bench_monitor.py [--database DIR] [--train CSV] [--rounds N]

Workload: the 45 train gold plans as structured answers, the same plans with a strict-mode exploit (a name
fragment, quirk 3), with a plain failure (a repeated restaurant) and a no-answer output: what a policy writes.
Each round times both scorers over the whole mix, interleaved; the best round of each is compared.
Target (issue 12): monitor <= 1.3x the strict-only score. The check-only ratio (verdicts without the answer
gate) is printed too: it is the monitor's cost on the checking part alone.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

from planshape.shaping.observe.monitor import Monitor
from planshape.shaping.reward import Scorer
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.plan.formats import from_upstream, gate
from planshape.validators.travelplanner.query import Query, gold_plan, read_records
from planshape.validators.travelplanner.store.database import load_database

SHARED = Path(__file__).resolve().parents[2] / "shared" / "travelplanner"
MEALS = ("breakfast", "lunch", "dinner")


def fragment(plan):
    """The first meal named by its restaurant's name minus one letter (official: substring match)."""
    plan = copy.deepcopy(plan)
    for day in plan:
        for meal in MEALS:
            if day.get(meal, "-") != "-":
                name, city = day[meal].rsplit(",", 1)
                day[meal] = f"{name.strip()[:-1]},{city}"
                return plan
    return plan


def repeat(plan):
    plan = copy.deepcopy(plan)
    for day in plan:
        if day.get("lunch", "-") != "-" and day.get("dinner", "-") != "-":
            day["dinner"] = day["lunch"]
            break
    return plan


def workload(records):
    items = []
    for r in records:
        q, plan = Query.from_record(r), gold_plan(r)
        for variant in (plan, fragment(plan), repeat(plan)):
            items.append(("<answer>" + json.dumps(from_upstream(variant)) + "</answer>", q))
        items.append(("I could not finish the plan.", q))
    return items


def timed(fn, items) -> float:
    start = time.perf_counter()
    for args in items:
        fn(*args)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", default=str(SHARED / "database"))
    ap.add_argument("--train", default=str(SHARED / "train.csv"))
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()

    store = load_database(args.database)
    items = workload(read_records(args.train))
    plain, watched = Scorer(store, "strict"), Scorer(store, "strict", monitor=True)
    exploits = sum(watched.score(t, q).watch.exploit for t, q in items if watched.score(t, q).watch)
    gated = [(gate(t.split("<answer>")[1].split("</answer>")[0]).plan, q) for t, q in items if "<answer>" in t]
    monitor = Monitor("strict")
    best = {"score": [float("inf")] * 2, "check": [float("inf")] * 2}
    for _ in range(args.rounds):
        best["score"][0] = min(best["score"][0], timed(lambda t, q: plain.score(t, q), items))
        best["score"][1] = min(best["score"][1], timed(lambda t, q: watched.score(t, q), items))
        best["check"][0] = min(best["check"][0], timed(lambda p, q: check_plan(p, q, store, "strict"), gated))
        best["check"][1] = min(best["check"][1], timed(lambda p, q: monitor.check(p, q, store), gated))
    n = len(items)
    print(f"{n} outputs (45 gold, 45 exploits, 45 failures, 45 no-answers); {exploits} flagged as exploits")
    print(f"strict-only score:   {best['score'][0] / n * 1e3:8.3f} ms/output")
    print(f"score + monitor:     {best['score'][1] / n * 1e3:8.3f} ms/output")
    print(f"ratio (score):       {best['score'][1] / best['score'][0]:.2f}x  (target <= 1.3x)")
    print(f"checks only, strict: {best['check'][0] / len(gated) * 1e3:8.3f} ms/plan; "
          f"with the official pass: {best['check'][1] / len(gated) * 1e3:.3f} ms/plan; "
          f"ratio {best['check'][1] / best['check'][0]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
