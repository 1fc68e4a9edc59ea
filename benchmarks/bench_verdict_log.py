"""What the verdict log adds to a training step: the main thread's cost per batch, same run.

    python benchmarks/bench_verdict_log.py [--batch N] [--steps N]

A batch of scored samples (the facade's ``SampleScore``s, monitor on) and its advantages are logged per step
exactly as ``Shaper.score_batch`` / ``Shaper.advantages`` do (one merged record per sample); encoding and
writing happen on the log's writer thread. Printed: the main thread's time per batch (target <= 1 ms), the
writer's time per batch (off the step), and the time of scoring the batch, for scale.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
from planshape.shaping.facade import Shaper
from planshape.shaping.observe.verdict_log import read_log
from planshape.validators.travelplanner.sample import sample_dir


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args()

    import json

    rows = [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines() if line]
    texts = [rows[i % len(rows)]["text"] for i in range(args.batch)]
    queries = [rows[i % len(rows)]["query"] for i in range(args.batch)]
    with tempfile.TemporaryDirectory() as tmp:
        shaper = Shaper.from_mapping({"database": "sample", "total_steps": 100, "log_dir": tmp})
        start = time.perf_counter()
        scores = shaper.score_batch(texts, queries, 0)
        t_score = time.perf_counter() - start
        log = shaper._resources.verdict_log()
        turns = np.full(args.batch, 6)
        lengths = np.full(6 * args.batch, 120)
        a_e, a_s = np.linspace(-1, 1, args.batch), np.linspace(-0.1, 0.1, 6 * args.batch)
        groups = [i // 8 for i in range(args.batch)]
        reward = np.array([s.reward for s in scores])
        success = np.array([s.success for s in scores])
        main_thread = []
        start_all = time.perf_counter()
        for step in range(1, args.steps + 1):
            start = time.perf_counter()
            shaper._resources.log_scores(step, scores)  # what score_batch adds
            log.advantages(step, groups, reward, success, turns, lengths, a_e, a_s)  # what advantages() adds
            main_thread.append(time.perf_counter() - start)
        log.log.wait()
        t_writer = time.perf_counter() - start_all
        shaper.close()
        _, records, skipped = read_log(tmp)
    assert len(records) == args.batch * (args.steps + 1) and skipped == 0
    per_batch = np.array(main_thread) * 1e3
    print(f"batch {args.batch} samples with their advantages (6 turns each), {args.steps} steps, "
          f"{len(records)} records written")
    print(f"scoring the batch (for scale): {t_score * 1e3:8.1f} ms")
    print(f"log, main thread per step:     {np.median(per_batch):8.3f} ms median, {per_batch.max():.3f} ms max "
          f"(target <= 1 ms)")
    print(f"log, writer thread per step:   {t_writer / args.steps * 1e3:8.3f} ms (off the training step)")
    print(f"added to the step:             {np.median(per_batch) / (t_score * 1e3):.2%} of scoring the batch")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
