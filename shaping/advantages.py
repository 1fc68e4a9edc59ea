"""Advantage estimators over multi-turn rollouts: GRPO and PlanPO (arXiv 2608.17289), vectorised in numpy.

Inputs are per trajectory (group, reward, success, turn count T_i) plus the flat, trajectory-major list of
per-turn generated-token lengths L_{i,t}. Outputs are per trajectory and per turn; ``turns.broadcast``
puts them on the trainer's token tensor. No Python loop runs over groups or turns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

GROUPINGS = ("index-success", "index", "task")
FAILURE_CREDIT = ("none", "turn-cap")


def group_codes(index: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Dense integer codes for arbitrary group ids (VERL's ``uid`` strings, TRL's prompt positions)."""
    _, codes = np.unique(np.asarray(index, dtype=object).astype(str), return_inverse=True)
    return codes.astype(np.int64)


@dataclass(frozen=True)
class Rollouts:
    """One batch of trajectories. ``lengths`` holds every turn's token count, trajectory after trajectory."""

    group: np.ndarray  # (N,) int: group (prompt) code
    reward: np.ndarray  # (N,) float
    success: np.ndarray  # (N,) bool
    turns: np.ndarray  # (N,) int: T_i
    lengths: np.ndarray  # (sum T_i,) int: L_{i,t}

    def __post_init__(self) -> None:
        n = len(self.reward)
        if not (len(self.group) == len(self.success) == len(self.turns) == n):
            raise ValueError("group, reward, success and turns must have one entry per trajectory")
        if int(np.sum(self.turns)) != len(self.lengths):
            raise ValueError(f"turns add up to {int(np.sum(self.turns))} but {len(self.lengths)} lengths were given")
        if len(self.lengths) and int(np.min(self.lengths)) <= 0:
            raise ValueError("every turn must have at least one generated token")
        if not np.all(np.isfinite(self.reward)):
            raise ValueError("rewards must be finite")

    @classmethod
    def build(cls, group: Sequence[Any], reward: Sequence[float], success: Sequence[bool],
              turn_lengths: Sequence[Sequence[int]]) -> Rollouts:
        """From plain sequences; ``group`` may hold any hashable ids (prompt uids)."""
        codes = group_codes(group)
        turns = np.fromiter((len(t) for t in turn_lengths), dtype=np.int64, count=len(turn_lengths))
        flat = np.fromiter((x for t in turn_lengths for x in t), dtype=np.int64, count=int(turns.sum()))
        return cls(codes, np.asarray(reward, dtype=np.float64),
                   np.asarray(success, dtype=bool), turns, flat)

    @cached_property
    def owner(self) -> np.ndarray:
        """The trajectory of each turn."""
        return np.repeat(np.arange(len(self.turns)), self.turns)

    @cached_property
    def turn_index(self) -> np.ndarray:
        """0-based turn index t of each turn within its trajectory."""
        starts = np.cumsum(self.turns) - self.turns
        return np.arange(len(self.lengths)) - np.repeat(starts, self.turns)

    @property
    def n_groups(self) -> int:
        return int(self.group.max()) + 1 if len(self.group) else 0


@dataclass(frozen=True)
class Advantages:
    """``trajectory``: the per-trajectory part (A^E, or GRPO's A); ``turn``: A^S per turn (0 for GRPO);
    ``per_turn``: what each turn's tokens receive, A^E + α·A^S."""

    trajectory: np.ndarray
    turn: np.ndarray
    per_turn: np.ndarray
    alpha: float = 0.0


def segment_normalise(x: np.ndarray, segment: np.ndarray, member: np.ndarray, n_segments: int,
                      use_std: bool, eps: float, min_members: int = 2) -> np.ndarray:
    """(x − mean) / (std + eps) within each segment, over members only (unbiased std, as torch.std).

    Non-members, and segments with fewer than ``min_members`` members, get 0: with one sample there is
    nothing to compare against.
    """
    w = member.astype(np.float64)
    count = np.bincount(segment, weights=w, minlength=n_segments)
    mean = np.bincount(segment, weights=x * w, minlength=n_segments) / np.maximum(count, 1.0)
    dev = (x - mean[segment]) * w
    if use_std:
        var = np.bincount(segment, weights=dev * dev, minlength=n_segments) / np.maximum(count - 1.0, 1.0)
        dev = dev / (np.sqrt(var)[segment] + eps)
    dev[count[segment] < min_members] = 0.0
    return dev


def grpo(rollouts: Rollouts, norm_by_std: bool = True, eps: float = 1e-6) -> Advantages:
    """Group-normalised outcome, the reference estimator; identical to VERL's ``compute_grpo_outcome_advantage``
    (unbiased std, and a group of one keeps its raw reward: mean 0, std 1)."""
    r, g = rollouts.reward, rollouts.group
    n_groups = rollouts.n_groups
    count = np.bincount(g, minlength=n_groups)
    mean = np.bincount(g, weights=r, minlength=n_groups) / np.maximum(count, 1)
    dev = r - mean[g]
    std = np.sqrt(np.bincount(g, weights=dev * dev, minlength=n_groups) / np.maximum(count - 1, 1))
    single = count[g] == 1
    dev = np.where(single, r, dev)
    std_i = np.where(single, 1.0, std[g])
    adv = dev / (std_i + eps) if norm_by_std else dev
    return Advantages(adv, np.zeros(len(rollouts.lengths)), adv[rollouts.owner], 0.0)


def planpo(
    rollouts: Rollouts,
    alpha: float = 0.1,
    grouping: str = "index-success",
    norm: str = "std",
    eps: float = 1e-6,
    failure_credit: str = "none",
    turn_cap: int | None = None,
) -> Advantages:
    """PlanPO: A = A^E + α·A^S (Eq. 2-7).

    * A^E normalises R^E_i = 1[success]·R_i / T_i over the N trajectories of a group; each trajectory is one
      sample, however many turns it has.
    * A^S normalises R^S_{i,t} = 1[success]·R_i / L_{i,t}. ``grouping`` picks the turn group (the paper's
      text and Eq. (4) disagree, notes §2.3):
      ``"index-success"`` (default): turn index t over the successful trajectories still active at t;
      ``"index"``: Eq. (4) as written, turn index t over every active trajectory, failures included;
      ``"task"``: every turn of every successful trajectory of the task in one group (the prose's "flatten").
      Why the default: it keeps the prose's "only among successful responses" and Eq. (4)'s per-index
      comparison, so the length term compares a response only with other successes' responses at the same
      point of the task. "index" leaks the success signal (already in A^E) into the length term: a success
      gets A^S > 0 next to an active failure even with equal lengths. "task" ranks a trajectory's turns against
      each other, so even identical trajectories get non-zero A^S (a long final-answer turn is always
      penalised). The default's known cost, shared with "index": its baseline at turn t depends on which
      trajectories are still active at t, i.e. on the policy's own stopping turns (verl RFC #7244; see
      tests/shaping/test_advantages.py). Under "task", a task with fewer than two successful trajectories
      gets A^S = 0: length is only credited relative to another success.
    * Turns of failed trajectories get A^S = 0 under "task" and "index-success".
    * ``norm``: "std" (F_norm = std + ε) or "none" (F_norm = 1).
    * ``failure_credit``: "none" (the paper: failures get R^E = 0, whatever their shaped reward) or
      "turn-cap": failures keep partial credit as R_i / ``turn_cap``, the same divisor for every failure, so a
      failure is never credited for being short; it is also capped at the group's smallest success R^E, so a
      failure never out-scores a success.
    """
    if grouping not in GROUPINGS:
        raise ValueError(f"unknown PlanPO grouping {grouping!r}; choose one of {GROUPINGS}")
    if norm not in ("std", "none"):
        raise ValueError(f"unknown PlanPO norm {norm!r}; choose 'std' or 'none'")
    if failure_credit not in FAILURE_CREDIT:
        raise ValueError(f"unknown failure_credit {failure_credit!r}; choose one of {FAILURE_CREDIT}")
    use_std = norm == "std"
    r, g, T = rollouts.reward, rollouts.group, rollouts.turns
    n, n_groups = len(r), rollouts.n_groups
    ok = rollouts.success & (T > 0)
    re = np.where(ok, r / np.maximum(T, 1), 0.0)
    if failure_credit == "turn-cap":
        if turn_cap is None or turn_cap < max(int(T.max(initial=0)), 1):
            raise ValueError(f"failure_credit='turn-cap' needs turn_cap >= the longest trajectory ({int(T.max())})")
        floor = np.full(n_groups, np.inf)
        np.minimum.at(floor, g[ok], re[ok])
        re = np.where(ok, re, np.minimum(np.maximum(r, 0.0) / turn_cap, floor[g]))
    a_e = segment_normalise(re, g, np.ones(n, dtype=bool), n_groups, use_std, eps)

    owner = rollouts.owner
    ok_turn = ok[owner]
    rs = np.where(ok_turn, r[owner] / rollouts.lengths, 0.0)
    if grouping == "task":
        segment, member, n_segments = g[owner], ok_turn, n_groups
    else:
        t = rollouts.turn_index
        width = int(t.max(initial=0)) + 1
        segment, n_segments = g[owner] * width + t, n_groups * width
        member = ok_turn if grouping == "index-success" else np.ones(len(t), dtype=bool)
    a_s = segment_normalise(rs, segment, member, n_segments, use_std, eps)
    if grouping == "task":
        successes = np.bincount(g, weights=ok.astype(np.float64), minlength=n_groups)
        a_s[successes[segment] < 2] = 0.0
    return Advantages(a_e, a_s, a_e[owner] + alpha * a_s, float(alpha))


grpo.uses_success = False  # type: ignore[attr-defined]  # config checks skip the success predicate for it

Estimator = Callable[..., Advantages]
BUILTIN_ESTIMATORS: dict[str, Estimator] = {"grpo": grpo, "planpo": planpo}
