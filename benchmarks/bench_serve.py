"""The reward server's CPU cost per sample vs the in-process facade, same run, on the same samples.

    python benchmarks/bench_serve.py [--database DIR] [--train CSV] [--samples N] [--concurrency C]
                                     [--workers 1,2] [--batch 20] [--node-cores 32]

Workloads: the 45 train gold answers (each a full passing plan: every check runs), and fuzzed outputs
(``tests/adapter_fuzz.model_text`` on the gold answers: truncations, hostile shapes; most fail early), each
repeated to ``--samples``. Baseline: ``Shaper.score_batch`` in this process. Served: ``planshape serve --workers
W`` on 127.0.0.1, sent as OpenRLHF sends them, one sample a request and ``--batch`` samples a request,
``--concurrency`` requests in flight over aiohttp. Every served reward must equal the in-process one (exit 1
otherwise).

The machine is shared, so the figures are CPU time, not wall clock: user + system time of this process (in
process) and of every process of the server (its fronts and their scoring workers; the client is not counted),
per sample, and the ratio to in-process side by side. ``front`` is what the front processes spend per sample,
``workers`` what the scoring processes spend; their ratio says how many workers one front keeps busy
(``WORKERS_PER_FRONT``, the default ``--fronts``), and the last lines size a CPU node group by it.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planshape.shaping.serve.fronts import WORKERS_PER_FRONT  # noqa: E402

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


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (a server's fronts and their workers)."""
    out, todo = [], [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            out += children
            todo += children
    return out


def split_pids(server_pid: int) -> tuple[list[int], list[int]]:
    """(front pids, worker pids): a front is the server itself or a child that has children of its own."""
    fronts, workers = [server_pid], []
    for pid in descendants(server_pid):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" in cmdline:
            continue
        (fronts if descendants(pid) else workers).append(pid)
    return fronts, workers


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def workloads(shaper: Shaper, records: list[dict], n: int) -> dict[str, tuple[list[str], list[str], list[str]]]:
    """name -> (texts, labels, prompts), ``n`` samples each."""
    gold = [Shaper.gold_answer(r) for r in records]
    labels = [Shaper.query_json(r) for r in records]
    prompts = [chat_prompt(shaper.messages(r, include_tools=True)) for r in records]
    rng = random.Random(0)
    fuzzed = [model_text(rng, gold[i % len(gold)])[:50_000] for i in range(n)]
    pick = [i % len(gold) for i in range(n)]
    return {"gold": ([gold[i] for i in pick], [labels[i] for i in pick], [prompts[i] for i in pick]),
            "fuzzed": (fuzzed, [labels[i] for i in pick], [prompts[i] for i in pick])}


async def drive(url: str, texts: list[str], labels: list[str], prompts: list[str], concurrency: int,
                batch: int = 1) -> tuple[float, list[float]]:
    """(seconds, rewards in order): ``batch`` samples a request, ``concurrency`` requests in flight."""
    rewards = [0.0] * len(texts)
    starts = iter(range(0, len(texts), batch))

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        async def worker() -> None:
            for first in starts:
                picks = range(first, min(first + batch, len(texts)))
                payload = {"query": [prompts[i] + texts[i] + QWEN_EOS for i in picks],
                           "prompts": [prompts[i] for i in picks], "labels": [labels[i] for i in picks]}
                async with session.post(url, json=payload) as reply:
                    body = await reply.json()
                for i, reward in zip(picks, body["rewards"], strict=True):
                    rewards[i] = reward

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start, rewards


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", default=str(SHARED / "database"))
    ap.add_argument("--train", default=str(SHARED / "train.csv"))
    ap.add_argument("--samples", type=int, default=900)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--batch", type=int, default=20, help="samples a request in the batched runs")
    ap.add_argument("--node-cores", type=int, default=32, help="cores of a CPU node, for the sizing lines")
    args = ap.parse_args()

    config = {"database": args.database, "estimator": "grpo", "total_steps": 100}
    shaper = Shaper.from_mapping(config)
    records = Shaper.read_queries(args.train)
    loads = workloads(shaper, records, args.samples)
    print(f"{os.cpu_count()} CPU(s); {args.samples} samples per workload; {args.concurrency} requests in flight\n")
    print("CPU ms: per sample (user + system); in process: this process; served: the server's fronts + its scoring "
          "workers (the client not counted). vs in-process: the served CPU per sample over the in-process one.\n")
    print(f"{'workload':8} {'path':30} {'CPU ms':>8} {'front':>7} {'workers':>8} {'vs in-process':>14} "
          f"{'samples/s/core':>15} {'wall samples/s':>15}")
    ok = True
    ratios: dict[str, float] = {}
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_serve_{os.getpid()}"
    for name, (texts, labels, prompts) in loads.items():
        shaper.score_batch(texts[:45], labels[:45], 0)  # warm: the store is open, every query seen once
        start, cpu = time.perf_counter(), time.process_time()
        expected = [s.reward for s in shaper.score_batch([t + QWEN_EOS for t in texts], labels, 0)]
        wall = time.perf_counter() - start
        inline = (time.process_time() - cpu) / len(texts)
        print(f"{name:8} {'in-process (score_batch)':30} {1e3 * inline:8.3f} {'':>7} {'':>8} {'1.00x':>14} "
              f"{1 / inline:15.0f} {len(texts) / wall:15.0f}")
        for workers in sorted({int(w) for w in args.workers.split(",")}):
            srv = Server(config, tmp / f"{name}-{workers}", "--workers", str(workers))
            try:
                url = srv.url + "/get_reward"
                for batch in (1, args.batch):
                    asyncio.run(drive(url, texts[:90], labels[:90], prompts[:90], 8, batch))  # warm
                    fronts, pool = split_pids(srv.process.pid)
                    before = cpu_seconds(fronts), cpu_seconds(pool)
                    took, rewards = asyncio.run(drive(url, texts, labels, prompts, args.concurrency, batch))
                    front = (cpu_seconds(fronts) - before[0]) / len(texts)
                    work = (cpu_seconds(pool) - before[1]) / len(texts)
                    total = front + work
                    ratio = total / inline
                    ratios[f"{name}, {workers} worker(s), {batch} a request"] = ratio
                    if batch == 1:
                        ratios[f"front/worker {name} {workers}"] = front / work if work else float("inf")
                    if rewards != expected:
                        ok = False
                        wrong = sum(a != b for a, b in zip(rewards, expected, strict=True))
                        print(f"  MISMATCH: {wrong} rewards differ")
                    path = f"served, {workers} worker(s), {batch}/request"
                    print(f"{name:8} {path:30} {1e3 * total:8.3f} {1e3 * front:7.3f} {1e3 * work:8.3f} "
                          f"{ratio:13.2f}x {1 / total:15.0f} {len(texts) / took:15.0f}")
            finally:
                srv.stop()
        print()
    fronts_needed = {k: v for k, v in ratios.items() if k.startswith("front/worker")}
    worst = max(fronts_needed.values())
    print(f"front CPU per sample / worker CPU per sample, one sample a request: worst {worst:.3f} "
          f"(one front keeps ~{1 / worst:.0f} workers busy; default --fronts: one per {WORKERS_PER_FRONT} workers)")
    cores = args.node_cores
    print(f"a {cores}-core CPU node: --workers {cores - max(1, round(cores * worst / (1 + worst)))} with "
          f"--fronts {max(1, round(cores * worst / (1 + worst)))} (fronts' share of the CPU {worst / (1 + worst):.0%})")
    print("served rewards equal in-process:", ok)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
