"""PlanPO straight from the paper's equations (arXiv 2608.17289, Eq. 2-7), in plain Python loops: the oracle the
adapter tests compare each trainer's real code path against, token for token. Nothing here is planshape's.

Grouping "index-success" (planshape's default): the turn group of a_{i,t} is the t-th turns of the successful
trajectories of the same task that have a t-th turn. F_norm = unbiased std + eps.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence


def _normalised(values: list[float], eps: float) -> list[float]:
    if len(values) < 2:
        return [0.0] * len(values)  # one sample: x - mean(x) = 0
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return [(v - mean) / (std + eps) for v in values]


def planpo_reference(groups: Sequence[Hashable], rewards: Sequence[float], success: Sequence[bool],
                     turn_lengths: Sequence[Sequence[int]], alpha: float, eps: float = 1e-6) -> list[list[float]]:
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
        # Eq. (4)-(6): R^S = R / L over the successful trajectories' t-th turns
        longest = max(len(turn_lengths[i]) for i in members)
        for t in range(longest):
            at_t = [i for i in members if success[i] and len(turn_lengths[i]) > t]
            r_s = [rewards[i] / turn_lengths[i][t] for i in at_t]
            for i, value in zip(at_t, _normalised(r_s, eps), strict=True):
                a_s[i][t] = value
    return [[a_e[i] + alpha * a_s[i][t] for t in range(len(turn_lengths[i]))] for i in range(n)]


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
