"""Plans checked per second: planshape's indexed sandbox vs upstream-style pandas scans, same run.

    python benchmarks/bench_checks.py [--database DIR] [--train CSV] [--repeat N] [--rounds N] [--mode official|strict]

Both stores run the very same check code; verdicts must be identical (the script exits 1 otherwise).
Target (docs/architecture.md): at least 300x.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pandas_baseline import PandasStore  # noqa: E402
from planshape.validators.travelplanner.checks.verdicts import check_plan  # noqa: E402
from planshape.validators.travelplanner.query import Query, gold_plan, read_records  # noqa: E402
from planshape.validators.travelplanner.store.database import load_database  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "travelplanner"


def run(store, items, mode):
    """Seconds of this process's CPU time (the machine may be shared: time spent waiting is not the checks')."""
    start = time.process_time()
    results = [check_plan(plan, query, store, mode).to_dict() for query, plan in items]
    return time.process_time() - start, results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", default=str(SHARED / "database"))
    ap.add_argument("--train", default=str(SHARED / "train.csv"))
    ap.add_argument("--repeat", type=int, default=20, help="how many times the 45 gold plans are checked")
    ap.add_argument("--baseline-repeat", type=int, default=1, help="repeats for the (slow) pandas baseline")
    ap.add_argument("--mode", default="official", choices=("official", "strict"))
    ap.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds; the best of each side counts")
    args = ap.parse_args()

    records = read_records(args.train)
    items = [(Query.from_record(r), gold_plan(r)) for r in records]
    fast, slow = load_database(args.database), PandasStore(args.database)

    run(fast, items, args.mode)  # warm up
    t_fast = t_slow = float("inf")
    for _ in range(args.rounds):  # interleaved, best of each: load from other processes hits both sides alike
        t, fast_results = run(fast, items * args.repeat, args.mode)
        t_fast = min(t_fast, t)
        t, slow_results = run(slow, items * args.baseline_repeat, args.mode)
        t_slow = min(t_slow, t)

    if fast_results[: len(slow_results)] != slow_results:
        print("VERDICTS DIFFER between planshape and the pandas baseline", file=sys.stderr)
        return 1
    fast_rate = len(fast_results) / t_fast
    slow_rate = len(slow_results) / t_slow
    print(f"mode: {args.mode}; {len(items)} gold plans; verdicts identical")
    print(f"pandas baseline (upstream lookups): {slow_rate:10.1f} plans/s  ({len(slow_results)} plans)")
    print(f"planshape indexed sandbox:          {fast_rate:10.1f} plans/s  ({len(fast_results)} plans)")
    print(f"speed-up: {fast_rate / slow_rate:.0f}x  (target >= 300x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
