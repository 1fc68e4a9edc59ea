"""PlanPO end to end (turn spans, per-turn advantages, broadcast) vs VERL's own GRPO estimator, same tensors,
swept over the number of assistant turns per row, with 1 and 2 torch threads.

    python benchmarks/bench_advantages.py [--repeat N] [--turns 1,16,60,120,500] [--threads 1,2] [--clock cpu]

Batch: Planner-R1's training shape, 16 prompts x 8 rollouts = 128 trajectories x 30,500 response tokens.
Each shape gives every row the same number of turns (tool observations between them, padding after);
"alternating" is the worst case of the mask: 1,0,1,0,... over the whole row (15,250 one-token turns a row).
Every function of every shape runs once per round, rounds repeated: the medians compared (PlanPO against VERL's
GRPO, and PlanPO at n turns a row against 1) were taken over the same stretch of time, so a shared machine's load
falls on all alike. The default clock is this process's CPU time (with more than one thread it also counts
torch's OpenMP workers spinning idle after each parallel op: compare the 1-thread figures).
Needs verl installed (``pip install "verl[verl-core]==0.9.1"``); exits 1 without it.
Targets (docs/architecture.md, *Bars*): with one torch thread, PlanPO at most 1.3x VERL's GRPO at every turn count
up to 500 a row, and PlanPO's time at 120 and at 500 turns a row at most 1.3x its time at 1 (the per-token cost flat
in turns). Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch
from planshape.shaping.advantages import grpo, planpo
from planshape.shaping.advantages.tokens import token_advantages

PROMPTS, ROLLOUTS, LENGTH = 16, 8, 30_500
RATIO_TARGET, GROWTH_TARGET, MOST_TURNS = 1.3, 1.3, 500


def make_batch(turns: int | str, prompts: int = PROMPTS, n: int = ROLLOUTS, length: int = LENGTH, seed: int = 0):
    """(token rewards, mask, uids): every row has ``turns`` assistant turns, or the alternating mask."""
    rng = np.random.default_rng(seed)
    batch = prompts * n
    if turns == "alternating":
        mask = np.zeros((batch, length), dtype=np.float32)
        mask[:, ::2] = 1
    else:
        diff = np.zeros((batch, length + 1), dtype=np.int64)
        for i in range(batch):
            used = int(rng.integers(length // 2, length + 1))
            cuts = np.sort(rng.choice(np.arange(1, used), size=2 * turns - 1, replace=False))
            bounds = np.concatenate([[0], cuts])  # turn k spans bounds[2k]..bounds[2k+1] (or `used`)
            ends = np.append(bounds[1::2], used if len(bounds) % 2 else [])[:turns]
            np.add.at(diff[i], bounds[0::2][:turns], 1)
            np.add.at(diff[i], ends.astype(np.int64), -1)
        mask = np.cumsum(diff, axis=1)[:, :length].astype(np.float32)
    mask_t = torch.from_numpy(mask)
    last = length - 1 - torch.flip(mask_t, dims=[1]).argmax(dim=1)
    rewards = torch.zeros_like(mask_t)
    score = torch.from_numpy(np.where(rng.random(batch) < 0.5, 5.0, rng.uniform(0, 4, batch)).astype(np.float32))
    rewards[torch.arange(batch), last] = score  # stage-1 Planner-R1 reward, pass = 5, on the last token
    index = np.array([f"uid-{i // n}" for i in range(batch)], dtype=object)
    return rewards, mask_t, index


def interleaved(fns, repeat, clock=time.perf_counter, seed=0):
    """Median seconds of each function, timed in turn within every round so that noise hits all alike; the order
    changes from round to round, so no function always runs after the same one (caches, allocator state)."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    rng = np.random.default_rng(seed)
    for _ in range(repeat):
        for k in rng.permutation(len(fns)):
            start = clock()
            fns[k]()
            times[k].append(clock() - start)
    return [statistics.median(b) for b in times]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--turns", default="1,16,60,120,500,alternating")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="cpu",
                    help="cpu (default): this process's CPU time, steadier on a shared machine; with 1 thread it is "
                         "the work, with more it also counts torch's OpenMP workers spinning idle after each op")
    args = ap.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    try:
        from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage
    except ImportError as exc:
        print(f"verl is not installed ({exc}); install it to run this benchmark", file=sys.stderr)
        return 1
    shapes = [int(t) if t.isdigit() else t for t in args.turns.split(",")]
    make_batch(shapes[0])  # thrown away: the first batch made sits in memory that reads slower (measured: ~10%)
    batches = {t: make_batch(t) for t in shapes}
    ok = True
    for threads in (int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        fns = []
        for rewards, mask, index in batches.values():
            def verl_grpo(rewards=rewards, mask=mask, index=index):
                return compute_grpo_outcome_advantage(rewards, mask, index)[0]

            def ours(estimator, rewards=rewards, mask=mask, index=index, **kw):
                return lambda: token_advantages(rewards.sum(-1), mask, index, estimator,
                                                success=rewards.sum(-1).cpu().numpy() >= 5.0, **kw)[0]

            # Our GRPO must equal VERL's, token for token.
            torch.testing.assert_close(ours(grpo)(), verl_grpo(), rtol=1e-5, atol=1e-5)
            fns += [verl_grpo, ours(planpo, alpha=0.1), ours(grpo)]
        medians = interleaved(fns, args.repeat, clock)  # every shape's functions in every round
        print(f"\n== torch threads {threads}; {PROMPTS * ROLLOUTS} x {LENGTH} tokens; median of {args.repeat} "
              f"rounds ({args.clock} clock)")
        print(f"{'turns/row':>12} {'turns':>9} {'VERL grpo':>10} {'our grpo':>10} {'planpo':>10} {'ratio':>7} "
              f"{'vs 1 turn':>9}")
        planpo_s = {shape: medians[3 * k + 1] for k, shape in enumerate(batches)}
        for k, (shape, (_, mask, _)) in enumerate(batches.items()):
            t_verl, t_planpo, t_grpo = medians[3 * k:3 * k + 3]
            ratio = t_planpo / t_verl
            growth = t_planpo / planpo_s[1] if 1 in planpo_s else float("nan")
            total = int((mask.diff(dim=1, prepend=torch.zeros(mask.shape[0], 1)) > 0).sum())
            flags = []
            if threads == 1 and isinstance(shape, int) and shape <= MOST_TURNS:
                if ratio > RATIO_TARGET:
                    ok, flags = False, [*flags, f"over {RATIO_TARGET}x VERL"]
                if shape > 1 and growth > GROWTH_TARGET:
                    ok, flags = False, [*flags, f"over {GROWTH_TARGET}x 1 turn"]
            print(f"{shape!s:>12} {total:>9} {1e3 * t_verl:8.2f}ms {1e3 * t_grpo:8.2f}ms {1e3 * t_planpo:8.2f}ms "
                  f"{ratio:6.2f}x {growth:8.2f}x" + (f"  ({'; '.join(flags)})" if flags else ""))
    print(f"\ntargets (1 thread, up to {MOST_TURNS} turns/row): PlanPO <= {RATIO_TARGET}x VERL's GRPO, and <= "
          f"{GROWTH_TARGET}x its time at 1 turn/row: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
