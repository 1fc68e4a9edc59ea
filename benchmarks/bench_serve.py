"""The reward server's CPU cost per sample vs the in-process facade, same run, on the same samples.

    python benchmarks/bench_serve.py [--database DIR] [--train CSV] [--samples N] [--concurrency C]
                                     [--workers 1,2] [--batch 20] [--repeats 3] [--node-cores 32]

Workloads: the 45 train gold answers (each a full passing plan: every check runs), fuzzed outputs
(``tests/adapter_fuzz.model_text`` on the gold answers: truncations, hostile shapes; most fail early), and the two
interleaved (``mixed``), each ``--samples`` long. Baseline: ``Shaper.score_batch`` in this process (and, as a
second line, with ``metrics()`` of every score: what an in-process adapter logs, and what every reply carries).
Served: ``planshape serve --workers W`` on 127.0.0.1, sent as OpenRLHF sends them, one sample a request and
``--batch`` samples a request, ``--concurrency`` requests in flight over aiohttp. Every served reward must equal
the in-process one (exit 1 otherwise).

The machine is shared, so the figures are CPU time, not wall clock: user + system time of this process (in
process) and of every process of the server (its fronts and their scoring workers; the client is not counted),
per sample, and the ratio to in-process side by side. Each figure is the median of ``--repeats`` runs, with the
spread (lowest-highest) of the served total. ``front`` is what the front processes spend per sample,
``workers`` what the scoring processes spend; their ratio says how many workers one front keeps busy
(``WORKERS_PER_FRONT``, the default ``--fronts``), and the last lines size a CPU node group by it.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import orjson
from planshape.shaping import Shaper
from planshape.shaping.facade import gold_answer, query_json, read_queries

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planshape.shaping.serve.fronts import WORKERS_PER_FRONT  # noqa: E402

from tests.adapter_fuzz import model_text  # noqa: E402
from tests.serve.server import QWEN_EOS, Server, chat_prompt, free_port  # noqa: E402

SHARED = ROOT.parent / "shared" / "travelplanner"


def cpu_seconds(pids: list[int]) -> float:
    """CPU time of live processes, every thread: the scheduler's run time in nanoseconds (``/proc/PID/task/TID/
    schedstat``, what ``time.process_time`` reads for this process), not ``/proc/PID/stat``'s 10 ms ticks, which
    over a run of 450 samples are 0.02 ms a sample apart."""
    total = 0
    for pid in pids:
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, IndexError, ValueError):
                continue
    return total / 1e9


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
    gold = [gold_answer(r) for r in records]
    labels = [query_json(r) for r in records]
    prompts = [chat_prompt(shaper.messages(r, include_tools=True)) for r in records]
    rng = random.Random(0)
    fuzzed = [model_text(rng, gold[i % len(gold)])[:50_000] for i in range(n)]
    pick = [i % len(gold) for i in range(n)]
    mixed = [gold[i % len(gold)] if i % 2 == 0 else fuzzed[i] for i in range(n)]
    same = ([labels[i] for i in pick], [prompts[i] for i in pick])
    return {"gold": ([gold[i] for i in pick], *same), "fuzzed": (fuzzed, *same), "mixed": (mixed, *same)}


async def drive(url: str, texts: list[str], labels: list[str], prompts: list[str], concurrency: int,
                batch: int = 1) -> tuple[float, list[float]]:
    """(seconds, rewards in order): ``batch`` samples a request, ``concurrency`` requests in flight. The bodies
    are encoded before the clock starts (as ``json=`` would: a fuzzed text's lone surrogate escaped) and the replies
    read with orjson: the client shares this machine's cores with the server (a trainer's client runs on its own
    node), so it should take as little of them as it can."""
    rewards = [0.0] * len(texts)
    requests = []
    for first in range(0, len(texts), batch):
        picks = range(first, min(first + batch, len(texts)))
        requests.append((picks, json.dumps({"query": [prompts[i] + texts[i] + QWEN_EOS for i in picks],
                                            "prompts": [prompts[i] for i in picks],
                                            "labels": [labels[i] for i in picks]}).encode()))
    pending = iter(requests)
    headers = {"Content-Type": "application/json"}

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        async def worker() -> None:
            for picks, data in pending:
                async with session.post(url, data=data, headers=headers) as reply:
                    body = orjson.loads(await reply.read())
                for i, reward in zip(picks, body["rewards"], strict=True):
                    rewards[i] = reward

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start, rewards


def in_process(shaper: Shaper, texts: list[str], labels: list[str]) -> tuple[float, float, float, list[float]]:
    """One run: (CPU s per sample of score_batch, the same with metrics() of each score, samples/s wall, the
    rewards)."""
    start, cpu = time.perf_counter(), time.process_time()
    scores = shaper.score_batch([t + QWEN_EOS for t in texts], labels, 0)
    wall = len(texts) / (time.perf_counter() - start)
    plain = (time.process_time() - cpu) / len(texts)
    cpu = time.process_time()
    for score in shaper.score_batch([t + QWEN_EOS for t in texts], labels, 0):
        score.metrics()
    return plain, (time.process_time() - cpu) / len(texts), wall, [s.reward for s in scores]


def in_processes(shaper: Shaper, texts: list[str], labels: list[str]) -> float:
    """One run of ``score_batch`` on the facade's own scoring processes (``workers`` > 0): CPU s per sample of
    this process and its scoring processes together."""
    pids = shaper.pool.pids
    start = time.process_time() + cpu_seconds(pids)
    shaper.score_batch([t + QWEN_EOS for t in texts], labels, 0)
    return (time.process_time() + cpu_seconds(pids) - start) / len(texts)


def served(server: Server, texts: list[str], labels: list[str], prompts: list[str], concurrency: int,
           batch: int) -> tuple[float, float, float, list[float]]:
    """One run: (front CPU s per sample, workers' CPU s per sample, samples/s wall, the rewards)."""
    fronts, pool = split_pids(server.process.pid)
    before = cpu_seconds(fronts), cpu_seconds(pool)
    took, rewards = asyncio.run(drive(server.url + "/get_reward", texts, labels, prompts, concurrency, batch))
    return ((cpu_seconds(fronts) - before[0]) / len(texts), (cpu_seconds(pool) - before[1]) / len(texts),
            len(texts) / took, rewards)


def ceiling(database: str, texts: list[str], labels: list[str], prompts: list[str], concurrency: int,
            repeats: int) -> float:
    """The front's CPU s per request when scoring is free (``front_ceiling.py``: the real front, its one scoring
    process answering at once): the median over ``repeats`` runs of the workload."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "front_ceiling.py"), str(port), "1",
                                database], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().startswith("ready"), "front_ceiling.py"
        url = f"http://127.0.0.1:{port}/get_reward"
        asyncio.run(drive(url, texts, labels, prompts, concurrency))
        runs = []
        for _ in range(repeats):
            before = cpu_seconds([process.pid])
            asyncio.run(drive(url, texts, labels, prompts, concurrency))
            runs.append((cpu_seconds([process.pid]) - before) / len(texts))
        return statistics.median(runs)
    finally:
        process.terminate()
        process.wait(30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", default=str(SHARED / "database"))
    ap.add_argument("--train", default=str(SHARED / "train.csv"))
    ap.add_argument("--samples", type=int, default=450)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--batch", type=int, default=20, help="samples a request in the batched runs")
    ap.add_argument("--repeats", type=int, default=5, help="rounds; the median of each figure is printed")
    ap.add_argument("--workloads", default="gold,fuzzed,mixed")
    ap.add_argument("--node-cores", type=int, default=32, help="cores of a CPU node, for the sizing lines")
    args = ap.parse_args()

    config = {"database": args.database, "estimator": "grpo", "total_steps": 100}
    shaper = Shaper.from_mapping(config)
    records = read_queries(args.train)
    counts = sorted({int(w) for w in args.workers.split(",")})
    pooled = {w: Shaper.from_mapping({**config, "workers": w}) for w in counts if w > 1}
    loads = {k: v for k, v in workloads(shaper, records, args.samples).items() if k in args.workloads.split(",")}
    batches = (1, args.batch)
    print(f"{os.cpu_count()} CPU(s), load average {os.getloadavg()[0]:.1f}; {args.samples} samples per workload; "
          f"{args.concurrency} requests in flight; {args.repeats} rounds, each running every path once in turn "
          "(in process, then each server), so that the load of the moment weighs on all alike\n")
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_serve_{os.getpid()}"
    servers = {w: Server(config, tmp / f"workers-{w}", "--workers", str(w)) for w in counts}
    runs: dict[tuple[str, str], list[tuple[float, ...]]] = {}
    ok = True
    try:
        for texts, labels, prompts in loads.values():  # warm: every store open, every query seen
            shaper.score_batch(texts[:45], labels[:45], 0)
            for each in pooled.values():
                each.score_batch(texts[:90], labels[:90], 0)
            for server in servers.values():
                for batch in batches:
                    asyncio.run(drive(server.url + "/get_reward", texts[:90], labels[:90], prompts[:90], 8, batch))
        for round_ in range(args.repeats):
            for name, (texts, labels, prompts) in loads.items():
                plain, logged, wall, expected = in_process(shaper, texts, labels)
                runs.setdefault((name, "in"), []).append((plain, logged, wall))
                for workers, each in pooled.items():
                    runs.setdefault((name, f"in/{workers}"), []).append((in_processes(each, texts, labels),))
                for workers, server in servers.items():
                    for batch in batches:
                        front, work, wall, rewards = served(server, texts, labels, prompts, args.concurrency, batch)
                        runs.setdefault((name, f"{workers}/{batch}"), []).append((front, work, wall))
                        if rewards != expected:
                            ok = False
                            wrong = sum(a != b for a, b in zip(rewards, expected, strict=True))
                            print(f"  MISMATCH ({name}, {workers} workers, {batch}/request): {wrong} rewards differ")
            print(f"round {round_ + 1} of {args.repeats} done (load average {os.getloadavg()[0]:.1f})",
                  file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
        for each in pooled.values():
            each.close()

    print("CPU ms: per sample (user + system); in process: this process; served: the server's fronts + its scoring "
          "workers (the client not counted); the median of the rounds, and the lowest-highest served total. "
          "vs in-process: the median over rounds of the served CPU per sample over that round's in-process one "
          "(score_batch; in brackets: score_batch + metrics()).\n")
    print(f"{'workload':8} {'path':32} {'CPU ms':>7} {'spread':>11} {'front':>7} {'workers':>8} "
          f"{'vs in-process':>17} {'samples/s/core':>15} {'wall samples/s':>15}")
    med = statistics.median
    front_share: dict[str, float] = {}
    for name in loads:
        base = runs[(name, "in")]
        plain, logged = med(r[0] for r in base), med(r[1] for r in base)
        print(f"{name:8} {'in-process (score_batch)':32} {1e3 * plain:7.3f} {'':>11} {'':>7} {'':>8} "
              f"{'1.00x':>17} {1 / plain:15.0f} {med(r[2] for r in base):15.0f}")
        print(f"{name:8} {'in-process (+ metrics())':32} {1e3 * logged:7.3f} {'':>11} {'':>7} {'':>8} "
              f"{med(r[1] / r[0] for r in base):16.2f}x {1 / logged:15.0f}")
        for workers in counts:
            for batch in batches:
                rows = runs[(name, f"{workers}/{batch}")]
                totals = [r[0] + r[1] for r in rows]
                total, front, work = med(totals), med(r[0] for r in rows), med(r[1] for r in rows)
                ratio = med(t / b[0] for t, b in zip(totals, base, strict=True))
                ratio_logged = med(t / b[1] for t, b in zip(totals, base, strict=True))
                if batch == 1:
                    front_share[f"{name}, {workers} worker(s)"] = front / work if work else float("inf")
                path = f"served, {workers} worker(s), {batch}/request"
                spread = f"{1e3 * min(totals):.2f}-{1e3 * max(totals):.2f}"
                print(f"{name:8} {path:32} {1e3 * total:7.3f} {spread:>11} {1e3 * front:7.3f} {1e3 * work:8.3f} "
                      f"{f'{ratio:.2f}x ({ratio_logged:.2f}x)':>17} {1 / total:15.0f} {med(r[2] for r in rows):15.0f}")
        for workers in pooled:
            same = [r[0] for r in runs[(name, f"in/{workers}")]]
            ratios = " and ".join(
                f"{med((r[0] + r[1]) / b for r, b in zip(runs[(name, f'{workers}/{batch}')], same, strict=True)):.2f}x"
                f" ({batch}/request)" for batch in batches)
            print(f"{name:8} {f'in-process, {workers} scoring processes':32} {1e3 * med(same):7.3f}   (the same "
                  f"count of processes on this host: served with {workers} workers is {ratios} of it)")
        print()
    print("served rewards equal in-process:", ok)
    texts, labels, prompts = next(iter(loads.values()))
    free = ceiling(args.database, texts, labels, prompts, args.concurrency, args.repeats)
    print(f"\nthe front's ceiling (its one scoring process answering at once, so the front is never idle): "
          f"{1e3 * free:.3f} ms a request, {1 / free:,.0f} requests/s a core; at that rate one front passes on "
          + ", ".join(f"{med(r[1] for r in runs[(name, f'{counts[0]}/1')]) / free:.0f} workers' worth of {name} "
                      "samples" for name in loads) + " (a worker's CPU a sample, one a request, over the front's)")
    worst = max(front_share.values())
    print(f"front CPU per sample / worker CPU per sample, one sample a request: worst {worst:.3f} "
          f"(one front keeps ~{1 / worst:.0f} workers busy; default --fronts: one per {WORKERS_PER_FRONT} workers)")
    cores = args.node_cores
    fronts_needed = max(1, round(cores * worst / (1 + worst)))
    print(f"a {cores}-core CPU node: --workers {cores - fronts_needed} with --fronts {fronts_needed} (fronts' share "
          f"of the CPU {worst / (1 + worst):.0%})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
