"""Batch scoring throughput: the facade's process pool at 1, 2 and N workers vs in-process scoring, same run.

    python benchmarks/bench_batch.py [--database DIR] [--train CSV] [--batch N] [--workers 1,2,4]

Workload: a batch of structured answers built from the 45 train gold plans (gold, a name-fragment exploit,
a repeated restaurant), scored with the monitor on, as a trainer's one-call batch scorer would. Each pool is
started (and its workers warmed) before timing; the in-process baseline runs in this process. Results must
be identical (the script exits 1 otherwise).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from planshape.shaping.facade import Shaper
from planshape.validators.travelplanner.query import read_records

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_monitor import SHARED, workload  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", default=str(SHARED / "database"))
    ap.add_argument("--train", default=str(SHARED / "train.csv"))
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--workers", default=f"1,2,{os.cpu_count() or 2}")
    args = ap.parse_args()

    records = read_records(args.train)
    by_query = {r["query"]: r for r in records}
    mix = [(text, by_query[q.query]) for text, q in workload(records)]
    batch = [mix[i % len(mix)] for i in range(args.batch)]
    texts, queries = [t for t, _ in batch], [q for _, q in batch]
    base = {"database": args.database, "total_steps": 100, "sample_budget_s": 10.0}

    inline = Shaper.from_mapping(base)
    inline.score_batch(texts[:8], queries[:8], 0)  # open the store
    start = time.perf_counter()
    expected = [(s.reward, s.failure) for s in inline.score_batch(texts, queries, 0)]
    t_inline = time.perf_counter() - start
    print(f"batch of {len(batch)} outputs, {os.cpu_count()} CPU(s)")
    print(f"in-process:  {len(batch) / t_inline:8.1f} outputs/s")
    for workers in sorted({int(w) for w in args.workers.split(",")}):
        pooled = Shaper.from_mapping({**base, "workers": workers})
        try:
            pooled.score_batch(texts[: 2 * workers], queries[: 2 * workers], 0)  # start and warm every worker
            start = time.perf_counter()
            got = [(s.reward, s.failure) for s in pooled.score_batch(texts, queries, 0)]
            took = time.perf_counter() - start
        finally:
            pooled.close()
        if got != expected:
            print(f"RESULTS DIFFER with {workers} workers", file=sys.stderr)
            return 1
        print(f"{workers:2d} worker(s): {len(batch) / took:8.1f} outputs/s  ({t_inline / took:.2f}x in-process)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
