"""The estimators straight from their papers' equations, in plain Python loops: the oracle the adapter tests compare
each trainer's real code path against, token for token. Nothing here is planshape's.

* PlanPO (arXiv 2608.17289, Eq. 2-7). Turn groupings: "index-success", the t-th turns of the successful
  trajectories of the same task that have a t-th turn (the paper's per-index reading among successes);
  "index-final" (planshape's default), as "index-success" for non-final turns, and every successful
  trajectory's final turn in one group of final turns; "index", Eq. (4) as written (every active trajectory,
  failures with R^S = 0); "task", every turn of every success in one group. F_norm = unbiased std + eps.
* GiGPO (arXiv 2505.10978): episode advantage of the return R(tau) = sum_t r_t over the group's trajectories (Eq. 3;
  or, verl-agent's convention, over every turn of them), plus omega times the step advantage of the discounted
  return sum_{k>=t} gamma^(k-t) r_k (Eq. 5) over the turns of the group taken in the same anchor state (Eq. 6; or
  states whose difflib ratio reaches a threshold, verl-agent's similarity grouping).
* RLOO: R_i minus the mean of the other trajectories of the group (a group of one keeps R_i, as VERL).
* GRPO: (R_i - mean) / (std + eps) over the group (a group of one keeps R_i, as VERL).

Per-turn rewards: ``step_rewards[i][t]`` is turn t's reward besides the outcome ``rewards[i]``, which the final turn
earns, so r_{i,t} = step_rewards[i][t] + [t = T_i - 1] rewards[i]. GRPO, RLOO and PlanPO estimate from the outcome
(``reward="outcome"``) or from the trajectory's return sum_t r_{i,t} (``reward="sum"``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from difflib import SequenceMatcher


def _normalised(values: list[float], eps: float, use_std: bool = True) -> list[float]:
    if len(values) < 2:
        return [0.0] * len(values)  # one sample: x - mean(x) = 0
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return [(v - mean) / (std + eps) if use_std else v - mean for v in values]


def turn_rewards(rewards: Sequence[float], turn_lengths: Sequence[Sequence[int]],
                 step_rewards: Sequence[Sequence[float]] | None) -> list[list[float]]:
    """r_{i,t}: each turn's per-turn reward, plus the outcome on the final turn."""
    out = []
    for i, lengths in enumerate(turn_lengths):
        row = [float(step_rewards[i][t]) if step_rewards is not None else 0.0 for t in range(len(lengths))]
        if row:
            row[-1] += rewards[i]
        out.append(row)
    return out


def trajectory_rewards(rewards: Sequence[float], turn_lengths: Sequence[Sequence[int]],
                       step_rewards: Sequence[Sequence[float]] | None, reward: str) -> list[float]:
    """What a trajectory-level estimator reads: the outcome, or the sum of every turn's reward."""
    if reward == "outcome" or step_rewards is None:
        return [float(r) for r in rewards]
    return [rewards[i] + sum(step_rewards[i]) for i in range(len(rewards))]


def grpo_reference(groups: Sequence[Hashable], rewards: Sequence[float], turn_lengths: Sequence[Sequence[int]],
                   eps: float = 1e-6, use_std: bool = True, step_rewards: Sequence[Sequence[float]] | None = None,
                   reward: str = "outcome") -> list[list[float]]:
    """(R_i - mean) / (std + eps) of the group on every turn of trajectory i; a group of one keeps R_i."""
    r = trajectory_rewards(rewards, turn_lengths, step_rewards, reward)
    out = []
    for i in range(len(r)):
        members = [r[j] for j in range(len(r)) if groups[j] == groups[i]]
        if len(members) == 1:
            a = r[i] / (1.0 + eps) if use_std else r[i]
        else:
            a = _normalised(members, eps, use_std)[[j for j in range(len(r)) if groups[j] == groups[i]].index(i)]
        out.append([a] * len(turn_lengths[i]))
    return out


def planpo_reference(groups: Sequence[Hashable], rewards: Sequence[float], success: Sequence[bool],
                     turn_lengths: Sequence[Sequence[int]], alpha: float, eps: float = 1e-6,
                     grouping: str = "index-final", step_rewards: Sequence[Sequence[float]] | None = None,
                     reward: str = "outcome") -> list[list[float]]:
    """A^PlanPO(a_{i,t}) = A^E(tau_i) + alpha * A^S(a_{i,t}) for every turn of every trajectory."""
    rewards = trajectory_rewards(rewards, turn_lengths, step_rewards, reward)
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
                    eps: float = 1e-6, use_std: bool = True, step_rewards: Sequence[Sequence[float]] | None = None,
                    episode_stats: str = "trajectories", similarity: float | None = None) -> list[list[float]]:
    """A(a_{i,t}) = A^E(tau_i) + omega * A^S(a_{i,t}) for every turn of every trajectory."""
    n = len(rewards)
    r = turn_rewards(rewards, turn_lengths, step_rewards)
    episode = [sum(r[i]) for i in range(n)]  # R(tau_i): the sum of the trajectory's rewards
    a_e = [0.0] * n
    a_s = [[0.0] * len(lengths) for lengths in turn_lengths]
    for g in set(groups):
        members = [i for i in range(n) if groups[i] == g]
        # episode statistics: one sample per trajectory (Eq. 3), or one per turn of each (verl-agent)
        samples = [episode[i] for i in members] if episode_stats == "trajectories" else \
            [episode[i] for i in members for _ in turn_lengths[i]]
        if len(samples) <= 1:  # a group of one sample: mean 0, F_norm 1 (GRPO's convention in VERL)
            for i in members:
                a_e[i] = episode[i] / (1.0 + eps) if use_std else episode[i]
        else:
            mean = sum(samples) / len(samples)
            std = math.sqrt(sum((v - mean) ** 2 for v in samples) / (len(samples) - 1))
            for i in members:
                a_e[i] = (episode[i] - mean) / (std + eps) if use_std else episode[i] - mean
        # step groups: the turns of this group's trajectories taken in one anchor state (or a similar one)
        key = _similar_clusters([anchors[i][t] for i in members for t in range(len(turn_lengths[i]))], similarity)
        steps: dict[Hashable, list[tuple[int, int]]] = {}
        for i in members:
            for t in range(len(turn_lengths[i])):
                steps.setdefault(key(anchors[i][t]), []).append((i, t))
        for step_group in steps.values():
            # discounted return from turn t (Eq. 5): sum over k >= t of gamma^(k - t) r_{i,k}
            returns = [sum(gamma ** (k - t) * r[i][k] for k in range(t, len(r[i]))) for i, t in step_group]
            for (i, t), value in zip(step_group, _normalised(returns, eps, use_std), strict=True):
                a_s[i][t] = value
    return [[a_e[i] + omega * a_s[i][t] for t in range(len(turn_lengths[i]))] for i in range(n)]


def _similar_clusters(states: list[Hashable], similarity: float | None):
    """State -> its step group's key: the state itself, or (similarity) the first state of the first cluster, in
    sorted order of the distinct states, whose difflib ratio with it reaches the threshold."""
    if similarity is None:
        return lambda state: state
    firsts: list[str] = []
    cluster: dict[Hashable, str] = {}
    for state in sorted(set(states)):
        for first in firsts:
            if SequenceMatcher(None, state, first).ratio() >= similarity:
                cluster[state] = first
                break
        else:
            firsts.append(state)
            cluster[state] = state
    return cluster.__getitem__


def rloo_reference(groups: Sequence[Hashable], rewards: Sequence[float], turn_lengths: Sequence[Sequence[int]],
                   step_rewards: Sequence[Sequence[float]] | None = None, reward: str = "outcome"
                   ) -> list[list[float]]:
    """R_i minus the mean reward of the other trajectories of its group, on every turn of trajectory i."""
    rewards = trajectory_rewards(rewards, turn_lengths, step_rewards, reward)
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
