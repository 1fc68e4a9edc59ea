"""The reward server's throughput and latency vs the in-process facade, same run, on the same samples.

    python benchmarks/bench_serve.py [--database DIR] [--train CSV] [--samples N] [--concurrency C]
                                     [--workers 1,2] [--node-cores 32]

Workloads: the 45 train gold answers (each a full passing plan: every check runs), and fuzzed outputs
(``tests/adapter_fuzz.model_text`` on the gold answers: truncations, hostile shapes; most fail early), each
repeated to ``--samples``. Baseline: ``Shaper.score_batch`` in this process (samples/s), and ``Shaper.score``
one sample at a time for the per-sample latency. Server: ``planshape serve --workers W`` on 127.0.0.1, sent
one sample per request as OpenRLHF 0.11 sends them, ``--concurrency`` requests in flight over aiohttp; latency
is per request, from send to reply. Every served reward must equal the in-process one (exit 1 otherwise).

The client, the server's event loop and its workers share this machine's cores, so the per-worker figure is a
floor for a CPU node that runs only scoring. The last lines scale it to a 16-node CPU pool linearly (as one
replica per node, workers = cores), which the 1 -> 2 worker line shows how far to trust.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from pathlib import Path

import aiohttp
from planshape.shaping import Shaper
from planshape.shaping.facade import gold_answer, query_json, read_queries

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.adapter_fuzz import model_text  # noqa: E402
from tests.serve.server import QWEN_EOS, Server, chat_prompt  # noqa: E402

SHARED = ROOT.parent / "shared" / "travelplanner"


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of live processes (from /proc; clock ticks)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def workloads(shaper: Shaper, records: list[dict], n: int) -> dict[str, tuple[list[str], list[str], list[str]]]:
    """name -> (texts, labels, prompts), ``n`` samples each."""
    gold = [gold_answer(r) for r in records]
    labels = [query_json(r) for r in records]
    prompts = [chat_prompt(shaper.messages(r, include_tools=True)) for r in records]
    rng = random.Random(0)
    fuzzed = [model_text(rng, gold[i % len(gold)])[:50_000] for i in range(n)]
    pick = [i % len(gold) for i in range(n)]
    return {"gold": ([gold[i] for i in pick], [labels[i] for i in pick], [prompts[i] for i in pick]),
            "fuzzed": (fuzzed, [labels[i] for i in pick], [prompts[i] for i in pick])}


async def drive(url: str, texts: list[str], labels: list[str], prompts: list[str],
                concurrency: int) -> tuple[float, list[float], list[float]]:
    """(seconds, per-request latencies, rewards in order): one sample per request, ``concurrency`` in flight."""
    latencies = [0.0] * len(texts)
    rewards = [0.0] * len(texts)
    queue = iter(range(len(texts)))

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        async def worker() -> None:
            for i in queue:
                payload = {"query": [prompts[i] + texts[i] + QWEN_EOS], "prompts": [prompts[i]], "labels": [labels[i]]}
                start = time.perf_counter()
                async with session.post(url, json=payload) as reply:
                    body = await reply.json()
                latencies[i] = time.perf_counter() - start
                rewards[i] = body["rewards"][0]

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start, latencies, rewards


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", default=str(SHARED / "database"))
    ap.add_argument("--train", default=str(SHARED / "train.csv"))
    ap.add_argument("--samples", type=int, default=450)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--node-cores", type=int, default=32, help="cores of a CPU node, for the 16-node line")
    args = ap.parse_args()

    config = {"database": args.database, "estimator": "grpo", "total_steps": 100}
    shaper = Shaper.from_mapping(config)
    records = read_queries(args.train)
    loads = workloads(shaper, records, args.samples)
    print(f"{os.cpu_count()} CPU(s); {args.samples} samples per workload; one sample per request, "
          f"{args.concurrency} in flight\n")
    print("p50/p99: one sample alone (in process: Shaper.score; served: one request in flight); loaded: the "
          f"request latency with {args.concurrency} in flight (mostly queueing); CPU ms: per sample, this process "
          "in process, the server and its workers when served (the client not counted)\n")
    print(f"{'workload':8} {'path':16} {'samples/s':>10} {'per worker':>11} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'vs in-process':>14} {'loaded p50':>9} {'loaded p99':>9} {'CPU ms':>8}")
    ok = True
    per_worker: dict[str, dict[int, float]] = {}
    cost: dict[str, dict[int, tuple[float, float]]] = {}
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_serve_{os.getpid()}"
    for name, (texts, labels, prompts) in loads.items():
        shaper.score_batch(texts[:45], labels[:45], 0)  # warm: the store is open, every query seen once
        start, cpu = time.perf_counter(), time.process_time()
        expected = [s.reward for s in shaper.score_batch([t + QWEN_EOS for t in texts], labels, 0)]
        inline = len(texts) / (time.perf_counter() - start)
        inline_cpu = (time.process_time() - cpu) / len(texts)
        one = []
        for t, q in zip(texts[:200], labels[:200], strict=True):
            s0 = time.perf_counter()
            shaper.score(t, q, 0)
            one.append(time.perf_counter() - s0)
        print(f"{name:8} {'in-process':16} {inline:10.1f} {inline:11.1f} {1e3 * quantile(one, .5):8.2f} "
              f"{1e3 * quantile(one, .99):8.2f} {'1.00x':>14} {'':>9} {'':>9} {1e3 * inline_cpu:8.2f}")
        for workers in sorted({int(w) for w in args.workers.split(",")}):
            srv = Server(config, tmp / f"{name}-{workers}", "--workers", str(workers))
            try:
                url = srv.url + "/get_reward"
                asyncio.run(drive(url, texts[:45], labels[:45], prompts[:45], min(8, args.concurrency)))  # warm
                front, pool = [srv.process.pid], srv.worker_pids()
                before = cpu_seconds(front), cpu_seconds(pool)
                took, latencies, rewards = asyncio.run(drive(url, texts, labels, prompts, args.concurrency))
                front_cpu = (cpu_seconds(front) - before[0]) / len(texts)
                pool_cpu = (cpu_seconds(pool) - before[1]) / len(texts)
                cost.setdefault(name, {})[workers] = (front_cpu, pool_cpu)
                alone = asyncio.run(drive(url, texts[:200], labels[:200], prompts[:200], 1))[1]
            finally:
                srv.stop()
            rate = len(texts) / took
            per_worker.setdefault(name, {})[workers] = rate / workers
            if rewards != expected:
                ok = False
                print(f"  MISMATCH: {sum(a != b for a, b in zip(rewards, expected, strict=True))} rewards differ")
            print(f"{name:8} {f'server, {workers} worker(s)':16} {rate:10.1f} {rate / workers:11.1f} "
                  f"{1e3 * quantile(alone, .5):8.2f} {1e3 * quantile(alone, .99):8.2f} {rate / inline:13.2f}x "
                  f"{1e3 * quantile(latencies, .5):9.1f} {1e3 * quantile(latencies, .99):9.1f} "
                  f"{1e3 * (front_cpu + pool_cpu):8.2f} = {1e3 * front_cpu:.2f} front + {1e3 * pool_cpu:.2f} workers")
        rates = per_worker[name]
        if 1 in rates and 2 in rates:
            print(f"{name:8} scaling 1 -> 2 workers: {2 * rates[2] / rates[1]:.2f}x")
        print()
    cores = args.node_cores
    for name, rates in per_worker.items():
        best = max(rates.values())
        front, pool = cost[name][min(cost[name])]
        per_node = cores / (front + pool)
        fronts = max(1, -(-round(cores * front / (front + pool) * 100) // 100))
        print(f"16 CPU nodes x {cores} cores, {name}: at the wall-clock rate measured here ({best:.0f} samples/s per "
              f"worker, a loaded shared machine) ~{16 * cores * best:,.0f} samples/s; by CPU cost "
              f"({1e3 * (front + pool):.2f} ms a sample) ~{16 * per_node:,.0f} samples/s, which needs "
              f">= {fronts} front process(es) per node (one server's front end alone tops out near "
              f"{1 / front:,.0f} samples/s: run Ray Serve replicas)")
    print("served rewards equal in-process:", ok)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
