"""Does PlanPO's turn term push the number of turns when the number of turns changes nothing? A simulation.

    python benchmarks/turn_count_bias.py [--groups 100000] [--seed 0]

The synthetic policy: after each turn it takes another with probability p = sigmoid(theta) (no cap), so a
trajectory's turn count is the policy's own choice; success (reward 10, else 0; the PlanPO paper's) is drawn
independently of it, and so is every turn's length. The turn term's expected push on theta, per group of 8, is
E[sum_i sum_t A^S_{i,t} * d/dtheta log pi(decision_{i,t})] (each turn's tokens carry its own A^S, as in every
trainer): (1 - p) for a turn followed by another, -p for the last. Positive: towards more turns. The truth is
0 in both scenarios, since nothing the outcome depends on changes with the turn count.

  equal lengths: every turn's length ~ U[20, 200).
  long final turn: a trajectory's last turn (its answer) ~ U[150, 400), the others (tool calls) ~ U[20, 200).

Estimators: the paper's three readings, "index-final" (planshape's corrected baseline), and, for reference, a
trajectory-sum baseline (every trajectory counted at every index of its group, absent turns as 0, the indices a
trajectory did not reach charged to its last turn: what verl RFC #7244's fix reads as when applied to R^S).
Prints each push with its 95% interval, its z (mean / standard error) and the number of groups; exits 1 when
"index-final" pushes (|z| > 5) or a reading the docs say pushes with long final turns does not.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from planshape.shaping.advantages import Rollouts, planpo

N, P, REWARD, SUCCESS_RATE = 8, 0.7, 10.0, 0.5
READINGS = ("index", "index-success", "task", "index-final")
Z_CLEAR = 5.0  # |mean| / standard error above which a push is called real (several estimators share the draws)


def simulate(groups: int, long_final: bool, rng: np.random.Generator) -> Rollouts:
    n = groups * N
    turns = rng.geometric(1 - P, size=n)  # turns until the first stop: P(T = k) = p^(k-1) (1 - p)
    final = np.zeros(int(turns.sum()), dtype=bool)
    final[np.cumsum(turns) - 1] = True
    lengths = rng.integers(20, 200, size=len(final))
    if long_final:
        lengths[final] = rng.integers(150, 400, size=int(final.sum()))
    success = rng.random(n) < SUCCESS_RATE
    return Rollouts(np.repeat(np.arange(groups), N), np.where(success, REWARD, 0.0), success, turns, lengths)


def trajectory_sum_turn_term(r: Rollouts, eps: float = 1e-6) -> np.ndarray:
    """R^S minus a per-index mean over all N trajectories (absent = 0), the unreached indices' means charged to the
    last turn, over one F per group: the std of the trajectories' summed R^S (each sums to S_i - mean S)."""
    owner = r.owner
    index = np.arange(len(r.lengths)) - np.repeat(np.cumsum(r.turns) - r.turns, r.turns)
    x = np.repeat(np.where(r.success, r.reward, 0.0), r.turns) / r.lengths
    width = int(r.turns.max())
    cell = r.group[owner] * width + index
    b = np.bincount(cell, weights=x, minlength=r.n_groups * width).reshape(r.n_groups, width) / N
    reached = np.cumsum(b, axis=1)  # sum of b over the indices <= t
    a = x - b.reshape(-1)[cell]
    last = np.cumsum(r.turns) - 1
    a[last] -= b.sum(axis=1)[r.group] - reached[r.group, r.turns - 1]
    total = np.bincount(owner, weights=x, minlength=len(r.turns))
    mean = np.bincount(r.group, weights=total, minlength=r.n_groups) / N
    f = np.sqrt(np.bincount(r.group, weights=(total - mean[r.group]) ** 2, minlength=r.n_groups) / (N - 1)) + eps
    return a / f[r.group[owner]]


def push(r: Rollouts, turn_term: np.ndarray) -> tuple[float, float]:
    """Mean push per group and the half-width of its 95% interval."""
    score = np.full(len(r.lengths), 1 - P)
    score[np.cumsum(r.turns) - 1] = -P
    per_group = np.bincount(r.group[r.owner], weights=turn_term * score, minlength=r.n_groups)
    return float(per_group.mean()), float(1.96 * per_group.std(ddof=1) / np.sqrt(len(per_group)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--groups", type=int, default=100_000, help="simulated groups of 8 per scenario")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    failed = []
    print(f"groups per scenario: {args.groups} (of {N}); continue probability p = {P}; success rate "
          f"{SUCCESS_RATE}, independent of the turn count; push on logit(p) per group, 95% interval")
    for long_final in (False, True):
        r = simulate(args.groups, long_final, rng)
        print(f"\n{'long final turn' if long_final else 'equal lengths'}: {len(r.lengths)} turns, "
              f"mean {r.turns.mean():.2f} per trajectory")
        rows = [(g, planpo(r, alpha=1.0, grouping=g).turn) for g in READINGS]
        rows.append(("trajectory-sum (RFC-style)", trajectory_sum_turn_term(r)))
        for name, term in rows:
            mean, half = push(r, term)
            z = mean / (half / 1.96) if half > 1e-12 else 0.0  # index-final: exactly 0 up to rounding
            biased = abs(z) > Z_CLEAR
            print(f"  {name:28s} {mean:+.4f} ± {half:.4f}   [{mean - half:+.4f}, {mean + half:+.4f}]  z = {z:+7.1f}")
            if name == "index-final" and biased:
                failed.append(f"index-final pushes the turn count ({mean:+.4f} ± {half:.4f})")
            if long_final and name in ("index", "index-success") and not biased:
                failed.append(f"{name} shows no push with long final turns; the docs say it has one")
    for line in failed:
        print(f"FAIL: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
