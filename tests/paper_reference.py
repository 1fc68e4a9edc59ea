"""The estimators straight from their papers' equations, in plain Python loops: the oracle the adapter tests compare
each trainer's real code path against, token for token. Nothing here is planshape's.

* PlanPO (arXiv 2608.17289, Eq. 2-7). Turn groupings: "index-success", the t-th turns of the successful
  trajectories of the same task that have a t-th turn (the paper's per-index reading among successes);
  "index-final" (planshape's default), as "index-success" for non-final turns, and every successful
  trajectory's final turn in one group of final turns; "index", Eq. (4) as written (every active trajectory,
  failures with R^S = 0); "task", every turn of every success in one group. F_norm = unbiased std + eps.
* GiGPO (arXiv 2505.10978): episode advantage over the group's trajectories, plus omega times the step advantage
  of the discounted return gamma^(T-t) R over the turns of the group taken in the same anchor state.
* RLOO: R_i minus the mean of the other trajectories of the group (a group of one keeps R_i, as VERL).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence


def _normalised(values: list[float], eps: float, use_std: bool = True) -> list[float]:
    if len(values) < 2:
        return [0.0] * len(values)  # one sample: x - mean(x) = 0
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return [(v - mean) / (std + eps) if use_std else v - mean for v in values]


def planpo_reference(groups: Sequence[Hashable], rewards: Sequence[float], success: Sequence[bool],
                     turn_lengths: Sequence[Sequence[int]], alpha: float, eps: float = 1e-6,
                     grouping: str = "index-final") -> list[list[float]]:
    """A^PlanPO(a_{i,t}) = A^E(tau_i) + alpha * A^S(a_{i,t}) for every turn of every trajectory."""
    n = len(rewards)
    a_e = [0.0] * n
    a_s = [[0.0] * len(lengths) for lengths in turn_lengths]
    for g in set(groups):
        members = [i for i in range(n) if groups[i] == g]
        # Eq. (2)-(3): R^E = 1[success] R / T over the group's trajectories
        r_e = [rewards[i] / len(turn_lengths[i]) if success[i] else 0.0 for i in members]
        for i, value in zip(members, _normalised(r_e, eps), strict=True):
            a_e[i] = value
        # Eq. (4)-(6): R^S = 1[success] R / L, normalised within each turn group
        for turn_group in _turn_groups(members, success, turn_lengths, grouping):
            r_s = [rewards[i] / turn_lengths[i][t] if success[i] else 0.0 for i, t in turn_group]
            for (i, t), value in zip(turn_group, _normalised(r_s, eps), strict=True):
                a_s[i][t] = value
    return [[a_e[i] + alpha * a_s[i][t] for t in range(len(turn_lengths[i]))] for i in range(n)]


def _turn_groups(members: list[int], success: Sequence[bool], turn_lengths: Sequence[Sequence[int]],
                 grouping: str) -> list[list[tuple[int, int]]]:
    """The (trajectory, turn) members of each turn group of one task."""
    longest = max(len(turn_lengths[i]) for i in members)
    if grouping == "task":
        every = [(i, t) for i in members if success[i] for t in range(len(turn_lengths[i]))]
        return [every] if sum(1 for i in members if success[i]) >= 2 else []
    if grouping == "index":
        return [[(i, t) for i in members if len(turn_lengths[i]) > t] for t in range(longest)]
    if grouping == "index-success":
        return [[(i, t) for i in members if success[i] and len(turn_lengths[i]) > t] for t in range(longest)]
    if grouping == "index-final":
        non_final = [[(i, t) for i in members if success[i] and len(turn_lengths[i]) - 1 > t]
                     for t in range(longest)]
        return [*non_final, [(i, len(turn_lengths[i]) - 1) for i in members if success[i] and turn_lengths[i]]]
    raise ValueError(grouping)


def gigpo_reference(groups: Sequence[Hashable], rewards: Sequence[float], turn_lengths: Sequence[Sequence[int]],
                    anchors: Sequence[Sequence[Hashable]], omega: float = 1.0, gamma: float = 0.95,
                    eps: float = 1e-6, use_std: bool = True) -> list[list[float]]:
    """A(a_{i,t}) = A^E(tau_i) + omega * A^S(a_{i,t}) for every turn of every trajectory."""
    n = len(rewards)
    a_e = [0.0] * n
    a_s = [[0.0] * len(lengths) for lengths in turn_lengths]
    for g in set(groups):
        members = [i for i in range(n) if groups[i] == g]
        if len(members) == 1:  # a group of one: mean 0, F_norm 1 (GRPO's convention in VERL)
            a_e[members[0]] = rewards[members[0]] / (1.0 + eps) if use_std else rewards[members[0]]
        else:
            for i, value in zip(members, _normalised([rewards[i] for i in members], eps, use_std), strict=True):
                a_e[i] = value
        # step groups: the turns of this group's trajectories taken in one anchor state
        steps: dict[Hashable, list[tuple[int, int]]] = {}
        for i in members:
            for t in range(len(turn_lengths[i])):
                steps.setdefault(anchors[i][t], []).append((i, t))
        for step_group in steps.values():
            # discounted return from turn t: the only reward is R_i, at the final turn T_i - 1
            returns = [gamma ** (len(turn_lengths[i]) - 1 - t) * rewards[i] for i, t in step_group]
            for (i, t), value in zip(step_group, _normalised(returns, eps, use_std), strict=True):
                a_s[i][t] = value
    return [[a_e[i] + omega * a_s[i][t] for t in range(len(turn_lengths[i]))] for i in range(n)]


def rloo_reference(groups: Sequence[Hashable], rewards: Sequence[float],
                   turn_lengths: Sequence[Sequence[int]]) -> list[list[float]]:
    """R_i minus the mean reward of the other trajectories of its group, on every turn of trajectory i."""
    out = []
    for i in range(len(rewards)):
        others = [rewards[j] for j in range(len(rewards)) if j != i and groups[j] == groups[i]]
        a = rewards[i] - sum(others) / len(others) if others else rewards[i]
        out.append([a] * len(turn_lengths[i]))
    return out


def runs(row: Sequence[int]) -> list[tuple[int, int]]:
    """The [start, end) of each run of 1s of a mask row: the assistant turns."""
    spans, start = [], None
    for j, bit in enumerate([*row, 0]):
        if bit and start is None:
            start = j
        elif not bit and start is not None:
            spans.append((start, j))
            start = None
    return spans


def token_reference(mask: Sequence[Sequence[int]], per_turn: Sequence[Sequence[float]]) -> list[list[float]]:
    """Each turn's value on its tokens, 0 elsewhere."""
    out = []
    for row, values in zip(mask, per_turn, strict=True):
        tokens = [0.0] * len(row)
        for (start, end), value in zip(runs(row), values, strict=True):
            tokens[start:end] = [value] * (end - start)
        out.append(tokens)
    return out
