"""The sandbox at full scale: a synthetic 3.8M-row flights table, its SQLite store, and the worker bars.

    python benchmarks/bench_store.py [--rows 3800000] [--workdir /tmp/planshape-fullsize] [--skip-memory]

Prints: time to write the CSV and build the store, the store's size; opening it in a fresh process (< 1 s);
peak RSS of a fresh process after checking 1,000 plans (< 300 MB); plans/s on the store vs the in-memory
sandbox loaded from the same full-size directory (within 2x). Verdicts must match (exit 1 otherwise).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "travelplanner"

WORKER = """
import json, resource, sys, time
t0 = time.perf_counter()
from planshape.validators.travelplanner.store.sqlite import SqliteStore
store = SqliteStore(sys.argv[1])
store.first_flight("F3573659")
opened = time.perf_counter() - t0
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.query import Query, gold_plan, read_records
items = [(Query.from_record(r), gold_plan(r)) for r in read_records(sys.argv[2])]
plans = (items * (1000 // len(items) + 1))[:1000]
t1 = time.perf_counter()
verdicts = [check_plan(p, q, store, "official").final_pass for q, p in plans]
checked = time.perf_counter() - t1
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"open_s": opened, "check_s": checked, "plans": len(plans), "passed": sum(verdicts), "rss_mb": rss}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=3_800_000)
    ap.add_argument("--workdir", default="/tmp/planshape-fullsize")
    ap.add_argument("--skip-memory", action="store_true", help="skip loading the full table into memory")
    args = ap.parse_args()

    from planshape.validators.travelplanner.checks.verdicts import check_plan
    from planshape.validators.travelplanner.query import Query, gold_plan, read_records
    from planshape.validators.travelplanner.store.database import load_database
    from planshape.validators.travelplanner.store.sqlite import SqliteStore, build_store
    from planshape.validators.travelplanner.store.synthetic import write_full_size_database

    work = Path(args.workdir)
    db_dir, store_path = work / "database", work / "sandbox.sqlite"
    start = time.perf_counter()
    write_full_size_database(SHARED / "database", db_dir, args.rows)
    csv_mb = (db_dir / "flights/clean_Flights_2022.csv").stat().st_size / 1e6
    print(f"synthetic flights: {args.rows} rows, {csv_mb:.0f} MB CSV, written in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    counts = build_store(db_dir, store_path)
    print(f"store build: {time.perf_counter() - start:.1f} s, {store_path.stat().st_size / 1e6:.0f} MB "
          f"({counts['flights']} flights)")

    out = subprocess.run([sys.executable, "-c", WORKER, str(store_path), str(SHARED / "train.csv")],
                         capture_output=True, text=True, check=True)
    worker = json.loads(out.stdout)
    print(f"fresh process: store open + first lookup {worker['open_s'] * 1e3:.0f} ms (bar < 1000 ms); "
          f"peak RSS after {worker['plans']} plans {worker['rss_mb']:.0f} MB (bar < 300 MB); "
          f"{worker['passed']}/{worker['plans']} gold plans pass")

    items = [(Query.from_record(r), gold_plan(r)) for r in read_records(SHARED / "train.csv")] * 10
    store = SqliteStore(store_path)
    check_plan(items[0][1], items[0][0], store)
    t = time.perf_counter()
    on_store = [check_plan(p, q, store, "official").to_dict() for q, p in items]
    t_store = time.perf_counter() - t
    print(f"store: {len(items) / t_store:.0f} plans/s")
    if not args.skip_memory:
        t = time.perf_counter()
        memory = load_database(db_dir)
        print(f"in-memory load of the full-size directory: {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        in_memory = [check_plan(p, q, memory, "official").to_dict() for q, p in items]
        t_mem = time.perf_counter() - t
        if in_memory != on_store:
            print("VERDICTS DIFFER between the store and the in-memory sandbox", file=sys.stderr)
            return 1
        print(f"in-memory: {len(items) / t_mem:.0f} plans/s; store / in-memory time ratio {t_store / t_mem:.2f}x "
              "(bar <= 2x); verdicts identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
