"""PlanPO end to end (turn spans, per-turn advantages, broadcast) vs VERL's own GRPO estimator, same tensors.

    python benchmarks/bench_advantages.py [--repeat N]

Batch: Planner-R1's training shape, 16 prompts x 8 rollouts = 128 trajectories, up to 30 assistant turns,
30,500 response tokens. Needs verl installed (``pip install "verl[verl-core]==0.9.1"``); exits 1 without it.
Target (DESIGN.md): PlanPO costs at most 2x VERL's GRPO.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch
from planshape.shaping.advantages import grpo, planpo
from planshape.shaping.token_level import token_advantages


def make_batch(prompts=16, n=8, max_turns=30, length=30_500, seed=0):
    """Rollouts with alternating assistant turns and tool observations, padded to ``length``."""
    rng = np.random.default_rng(seed)
    batch = prompts * n
    mask = torch.zeros((batch, length), dtype=torch.float32)
    rewards = torch.zeros((batch, length), dtype=torch.float32)
    for i in range(batch):
        turns = int(rng.integers(1, max_turns + 1))
        budget = int(rng.integers(length // 4, length))
        pos = 0
        for _ in range(turns):
            gen = int(rng.integers(20, 400))
            if pos + gen > budget:
                break
            mask[i, pos:pos + gen] = 1
            pos += gen + int(rng.integers(50, 600))  # tool observation
        last = int(mask[i].nonzero().max())
        rewards[i, last] = float(rng.choice([5.0, rng.uniform(0, 4)]))  # stage-1 Planner-R1 reward, pass = 5
    index = np.array([f"uid-{i // n}" for i in range(batch)], dtype=object)
    return rewards, mask, index


def interleaved(fns, repeat):
    """Median seconds of each function, timed in turn within every round so that noise hits all alike."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, bucket in zip(fns, times, strict=True):
            start = time.perf_counter()
            fn()
            bucket.append(time.perf_counter() - start)
    return [statistics.median(b) for b in times]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=60)
    args = ap.parse_args()
    try:
        from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage
    except ImportError as exc:
        print(f"verl is not installed ({exc}); install it to run this benchmark", file=sys.stderr)
        return 1
    torch.set_num_threads(max(1, torch.get_num_threads()))
    rewards, mask, index = make_batch()

    def verl_grpo():
        return compute_grpo_outcome_advantage(rewards, mask, index)[0]

    def ours(estimator, **kw):
        return lambda: token_advantages(rewards.sum(-1), mask, index, estimator, success_threshold=5.0, **kw)[0]

    # Our GRPO must equal VERL's, token for token.
    torch.testing.assert_close(ours(grpo)(), verl_grpo(), rtol=1e-5, atol=1e-5)
    t_verl, t_planpo, t_grpo = interleaved([verl_grpo, ours(planpo, alpha=0.1), ours(grpo)], args.repeat)
    turns = int((mask.diff(dim=1, prepend=torch.zeros(mask.shape[0], 1)) > 0).sum())
    print(f"batch: {mask.shape[0]} trajectories x {mask.shape[1]} tokens, {turns} turns; torch threads "
          f"{torch.get_num_threads()}; median of {args.repeat}")
    print(f"VERL compute_grpo_outcome_advantage: {1e3 * t_verl:8.2f} ms")
    print(f"planshape grpo (end to end):         {1e3 * t_grpo:8.2f} ms   ratio {t_grpo / t_verl:.2f}x")
    print(f"planshape planpo (end to end):       {1e3 * t_planpo:8.2f} ms   ratio {t_planpo / t_verl:.2f}x"
          "  (target <= 2x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
