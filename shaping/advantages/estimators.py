"""Advantage estimators over multi-turn rollouts: GRPO and PlanPO (arXiv 2608.17289), vectorised in numpy; the
rollouts they (and ``gigpo``, ``rloo``) read.

Inputs are per trajectory (group, reward, success, turn count T_i) plus the flat, trajectory-major list of
per-turn generated-token lengths L_{i,t} (and, for GiGPO, each turn's anchor state; where the environment rewards
turns, each turn's reward besides the outcome). Outputs are per trajectory and per turn; ``turns.broadcast`` puts
them on the trainer's token tensor. No Python loop runs over groups or turns.

Per-turn rewards (``Rollouts.step_reward``, s_{i,t}): a turn's reward r_{i,t} is s_{i,t}, plus the outcome R_i on the
final turn. GRPO, RLOO and PlanPO estimate from ``reward="outcome"`` (R_i, the default) or ``reward="sum"`` (the
trajectory's return R_i + Σ_t s_{i,t}); GiGPO always uses every turn's reward (``gigpo.py``). An estimator that would
not read them declares so (``reads_step_rewards``), and the facade refuses a batch that carries them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import Any

import numpy as np

from . import inputs
from .anchors import anchor_codes
from .inputs import group_codes

__all__ = ["Advantages", "Rollouts", "grpo", "group_codes", "planpo", "reads_step_rewards", "segment_normalise"]

GROUPINGS = ("index-final", "index-success", "index", "task")
FAILURE_CREDIT = ("none", "turn-cap")
REWARDS = ("outcome", "sum")
"""What a trajectory-level estimator estimates from: R_i, or R_i plus the trajectory's per-turn rewards."""


@dataclass(frozen=True)
class Rollouts:
    """One batch of trajectories. ``lengths`` holds every turn's token count, trajectory after trajectory;
    ``anchor``, where the trainer or environment gives one, the code of the state each turn was taken in
    (equal codes: the same state; ``anchors.py``), in the same order; ``step_reward``, where the environment rewards
    turns, each turn's reward besides the outcome ``reward`` (which the final turn earns), in the same order."""

    group: np.ndarray  # (N,) int: group (prompt) code
    reward: np.ndarray  # (N,) float
    success: np.ndarray  # (N,) bool
    turns: np.ndarray  # (N,) int: T_i
    lengths: np.ndarray  # (sum T_i,) int: L_{i,t}
    anchor: np.ndarray | None = None  # (sum T_i,) int: the state code of turn t of trajectory i
    step_reward: np.ndarray | None = None  # (sum T_i,) float: s_{i,t}, turn t's reward besides the outcome

    def __post_init__(self) -> None:
        """Every field checked (a ValueError names it); arrays normalised to int64 / float64 / bool."""
        checked = {"group": inputs.dense_codes(self.group), "reward": inputs.rewards(self.reward),
                   "turns": inputs.turn_counts(self.turns), "lengths": inputs.token_counts(self.lengths)}
        n = len(checked["reward"])
        if not (len(checked["group"]) == len(checked["turns"]) == n):
            raise ValueError("group, reward, success and turns must have one entry per trajectory")
        checked["success"] = inputs.success_flags(self.success, n)
        if int(np.sum(checked["turns"])) != len(checked["lengths"]):
            raise ValueError(f"turns add up to {int(np.sum(checked['turns']))} but {len(checked['lengths'])} "
                             "lengths were given")
        if self.anchor is not None:
            checked["anchor"] = inputs.dense_codes(self.anchor, "anchor")
            if len(checked["anchor"]) != len(checked["lengths"]):
                raise ValueError(f"anchor must hold one state code per turn ({len(checked['lengths'])}), got "
                                 f"{len(checked['anchor'])}")
        if self.step_reward is not None:
            checked["step_reward"] = inputs.rewards(self.step_reward, "step_reward")
            if len(checked["step_reward"]) != len(checked["lengths"]):
                raise ValueError(f"step_reward must hold one reward per turn ({len(checked['lengths'])}), got "
                                 f"{len(checked['step_reward'])}")
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def build(cls, group: Sequence[Any], reward: Sequence[float], success: Sequence[bool],
              turn_lengths: Sequence[Sequence[int]], anchors: Sequence[Sequence[Hashable]] | None = None,
              step_rewards: Sequence[Sequence[float]] | None = None) -> Rollouts:
        """From plain sequences; ``group`` may hold any hashable ids (prompt uids, tuples); ``anchors``: per
        trajectory, the state id (any hashable) of each of its turns; ``step_rewards``: per trajectory, each of its
        turns' reward besides the outcome ``reward``."""
        turns, flat = inputs.nested_token_counts(turn_lengths)
        anchor = None if anchors is None else anchor_codes(anchors, turns)
        step = None if step_rewards is None else inputs.per_turn_rewards(step_rewards, turns)
        return cls(group_codes(group), inputs.rewards(reward), inputs.success_flags(success, len(turns)), turns, flat,
                   anchor, step)

    @cached_property
    def owner(self) -> np.ndarray:
        """The trajectory of each turn."""
        return np.repeat(np.arange(len(self.turns)), self.turns)

    @property
    def n_groups(self) -> int:
        return int(self.group.max()) + 1 if len(self.group) else 0

    @property
    def has_step_rewards(self) -> bool:
        """Whether any turn carries a reward besides the outcome (what an outcome-only estimator would ignore)."""
        return self.step_reward is not None and bool(np.any(self.step_reward != 0))

    def trajectory_reward(self, reward: str = "outcome") -> np.ndarray:
        """Each trajectory's reward for a trajectory-level estimator: ``"outcome"``, R_i; ``"sum"``, its return
        R_i + Σ_t s_{i,t} (the sum of every turn's reward)."""
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; choose 'outcome' (the trajectory's outcome) or 'sum' (the "
                             "outcome plus its per-turn rewards)")
        if reward == "outcome" or self.step_reward is None:
            return self.reward
        return self.reward + np.bincount(self.owner, weights=self.step_reward, minlength=len(self.reward))


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
    return _normalise(x * w, segment, w, count, use_std, eps, min_members)


def _normalise(x: np.ndarray, segment: np.ndarray, w: np.ndarray | None, count: np.ndarray, use_std: bool,
               eps: float, min_members: int = 2) -> np.ndarray:
    """``segment_normalise`` with its per-entry work cut to the minimum: ``x`` already holds 0 for non-members,
    ``w`` is the members' 1/0 weights (None: every entry is a member) and ``count`` the members per segment.
    Per-segment terms are formed per segment and gathered once; the values are those of the plain formula. A
    large batch takes the compiled kernel (``segment_kernels``: the same values in three passes)."""
    kernels = _segment_kernels() if len(x) >= _COMPILED_FROM else None
    if kernels is not None:
        return kernels.normalise(np.asarray(x, dtype=np.float64), np.asarray(segment, dtype=np.int64),
                                 np.empty(0) if w is None else np.asarray(w, dtype=np.float64),
                                 np.asarray(count, dtype=np.float64), bool(use_std), float(eps), int(min_members),
                                 np.empty(len(x)))
    mean = np.bincount(segment, weights=x, minlength=len(count)) / np.maximum(count, 1.0)
    dev = x - mean[segment]
    if w is not None:
        dev *= w
    if use_std:
        var = np.bincount(segment, weights=dev * dev, minlength=len(count)) / np.maximum(count - 1.0, 1.0)
        dev /= (np.sqrt(var) + eps)[segment]
    small = count < min_members
    if small.any():
        dev[small[segment]] = 0.0
    return dev


_COMPILED_FROM = 4096  # per-turn entries from which the compiled kernels run: below, numpy is as fast


@functools.cache
def _segment_kernels() -> ModuleType | None:
    """The compiled per-turn kernels (the same values as the numpy code here), imported on first use (numba loads
    in about a second); None without numba."""
    try:
        from . import segment_kernels
    except ImportError:  # numba rejected by the environment: numpy does the same work, slower
        return None
    return segment_kernels


def grpo(rollouts: Rollouts, norm_by_std: bool = True, eps: float = 1e-6, reward: str = "outcome") -> Advantages:
    """Group-normalised outcome, the reference estimator; identical to VERL's ``compute_grpo_outcome_advantage``
    (unbiased std, and a group of one keeps its raw reward: mean 0, std 1). ``reward``: "outcome" or "sum"
    (``Rollouts.trajectory_reward``)."""
    inputs.positive_finite("eps", eps)
    r, g = rollouts.trajectory_reward(reward), rollouts.group
    n_groups = rollouts.n_groups
    count = np.bincount(g, minlength=n_groups)
    mean = np.bincount(g, weights=r, minlength=n_groups) / np.maximum(count, 1)
    dev = r - mean[g]
    std = np.sqrt(np.bincount(g, weights=dev * dev, minlength=n_groups) / np.maximum(count - 1, 1))
    single = count[g] == 1
    dev = np.where(single, r, dev)
    std_i = np.where(single, 1.0, std[g])
    adv = dev / (std_i + eps) if norm_by_std else dev
    return Advantages(adv, np.zeros(len(rollouts.lengths)), np.repeat(adv, rollouts.turns), 0.0)


def planpo(
    rollouts: Rollouts,
    alpha: float = 0.1,
    grouping: str = "index-final",
    norm: str = "std",
    eps: float = 1e-6,
    failure_credit: str = "none",
    turn_cap: int | None = None,
    reward: str = "outcome",
) -> Advantages:
    """PlanPO: A = A^E + α·A^S (Eq. 2-7).

    * A^E normalises R^E_i = 1[success]·R_i / T_i over the N trajectories of a group; each trajectory is one
      sample, however many turns it has.
    * A^S normalises R^S_{i,t} = 1[success]·R_i / L_{i,t}. ``grouping`` picks the turn group (the paper's
      text and Eq. (4) disagree, notes §2.3; every reading stays selectable):
      ``"index-final"`` (default; not in the paper): among the successful trajectories, a non-final turn is
      compared with the other successes' non-final turns at the same index t, and a trajectory's final turn
      with the other successes' final turns, at whatever index they came.
      ``"index-success"`` (the paper's reading, and the default before CHANGELOG.md's change of defaults): turn
      index t over the successful trajectories still active at t;
      ``"index"``: Eq. (4) as written, turn index t over every active trajectory, failures included;
      ``"task"``: every turn of every successful trajectory of the task in one group (the prose's "flatten").
      Why the default: under the per-index readings the turn that ends a trajectory at t is measured against
      turns that went on at t. When final turns are longer than the others (an answer after tool calls, as
      TravelPlanner's JSON plan), every final turn then scores below the tool calls beside it, whatever its own
      length: the turn term pushes towards more turns (``benchmarks/turn_count_bias.py``), and no turn term
      ever compares an answer's length with another answer's. "index-final" measures a stop and a continue each
      against its own kind: its push on the turn count is zero in every group, and in the learning loop
      (``benchmarks/learning_loop.py``, docs/learning-loop.md) it matched "index-success" on success and turns
      with equal-length turns and with a long final turn, and cut the tokens per turn with a long final turn
      (its answers compete with answers; where a longer answer is more often right, that costs a little
      success). With equal lengths the readings barely differ. "index" leaks the
      success signal (already in A^E) into the length term: a success gets A^S > 0 next to an active failure
      even with equal lengths. "task" ranks a trajectory's turns against each other, so even identical
      trajectories get non-zero A^S (a long final-answer turn is always penalised). Under "task", a task with
      fewer than two successful trajectories gets A^S = 0: length is only credited relative to another success.
    * Turns of failed trajectories get A^S = 0 under "task", "index-success" and "index-final".
    * ``norm``: "std" (F_norm = std + ε) or "none" (F_norm = 1).
    * ``failure_credit``: "none" (the paper: failures get R^E = 0, whatever their shaped reward) or
      "turn-cap": failures keep partial credit as R_i / ``turn_cap``, the same divisor for every failure, so a
      failure is never credited for being short; it is also capped at the group's smallest success R^E, so a
      failure never out-scores a success.
    * ``reward``: R_i is the outcome ("outcome", the paper's) or the trajectory's return with its per-turn rewards
      ("sum"; ``Rollouts.trajectory_reward``). Success stays what the caller flagged.
    """
    if grouping not in GROUPINGS:
        raise ValueError(f"unknown PlanPO grouping {grouping!r}; choose one of {GROUPINGS}")
    if norm not in ("std", "none"):
        raise ValueError(f"unknown PlanPO norm {norm!r}; choose 'std' or 'none'")
    if failure_credit not in FAILURE_CREDIT:
        raise ValueError(f"unknown failure_credit {failure_credit!r}; choose one of {FAILURE_CREDIT}")
    inputs.positive_finite("eps", eps)
    inputs.finite("alpha", alpha)
    use_std = norm == "std"
    r, g, T = rollouts.trajectory_reward(reward), rollouts.group, rollouts.turns
    n, n_groups = len(r), rollouts.n_groups
    ok = rollouts.success & (T > 0)
    re = np.where(ok, r / np.maximum(T, 1), 0.0)
    if failure_credit == "turn-cap":
        longest = max(int(T.max(initial=0)), 1)
        if turn_cap is None or not inputs.finite("turn_cap", turn_cap) >= longest:
            raise ValueError(f"failure_credit='turn-cap' needs turn_cap >= the longest trajectory ({longest})")
        floor = np.full(n_groups, np.inf)
        np.minimum.at(floor, g[ok], re[ok])
        re = np.where(ok, re, np.minimum(np.maximum(r, 0.0) / turn_cap, floor[g]))
    a_e = _normalise(re, g, None, np.bincount(g, minlength=n_groups).astype(np.float64), use_std, eps)
    kernels = _segment_kernels() if grouping != "task" and len(rollouts.lengths) >= _COMPILED_FROM else None
    if kernels is not None:  # the turn term below, compiled: the same values (segment_kernels.planpo_turns)
        a_s, per_turn = kernels.planpo_turns(g, T, ok, np.where(ok, r, 0.0), rollouts.lengths,
                                             GROUPINGS.index(grouping), use_std, float(eps), float(alpha), a_e)
        return Advantages(a_e, a_s, per_turn, float(alpha))

    # Per-turn arrays are built by repeating per-trajectory values T_i times (cheaper than gathering through
    # ``owner``), and each segment's member count comes from the turn counts, not from a pass over the turns.
    w: np.ndarray | None = np.repeat(ok.astype(np.float64), T)
    rs = np.repeat(np.where(ok, r, 0.0), T) / rollouts.lengths  # 0 / L = 0 for failures' turns
    if grouping == "task":
        segment, n_segments = np.repeat(g, T), n_groups
        count = np.bincount(g, weights=np.where(ok, T, 0).astype(np.float64), minlength=n_groups)
    else:
        segment, n_segments, first = _index_segments(rollouts)
        active = ok if grouping == "index-success" else np.ones(n, dtype=bool)
        # Group g's segment t counts the members with T_i > t: +1 at the group's first segment, -1 past the last.
        steps = (np.bincount(first[active], minlength=n_segments + 1)
                 - np.bincount(first[active] + T[active], minlength=n_segments + 1))
        count = np.cumsum(steps[:-1]).astype(np.float64)
        if grouping == "index":
            w = None
        elif grouping == "index-final":  # final turns leave their index segment for their group's final segment
            final = np.cumsum(T)[T > 0] - 1
            segment = segment.copy()
            segment[final] = n_segments + g[T > 0]
            n_segments += n_groups
            count = np.bincount(segment, weights=w, minlength=n_segments)
    a_s = _normalise(rs, segment, w, count, use_std, eps)
    if grouping == "task":
        successes = np.bincount(g, weights=ok.astype(np.float64), minlength=n_groups)
        a_s[(successes < 2)[segment]] = 0.0
    return Advantages(a_e, a_s, np.repeat(a_e, T) + alpha * a_s, float(alpha))


grpo.uses_success = False  # type: ignore[attr-defined]  # config checks skip the success predicate for it


def _sum_reads_steps(options: Mapping[str, Any]) -> bool:
    return options.get("reward", "outcome") == "sum"


grpo.uses_step_rewards = _sum_reads_steps  # type: ignore[attr-defined]  # per-turn rewards read with reward="sum"
planpo.uses_step_rewards = _sum_reads_steps  # type: ignore[attr-defined]


def reads_step_rewards(fn: Any, options: Mapping[str, Any]) -> bool:
    """Whether estimator ``fn`` with ``options`` uses per-turn rewards (``Rollouts.step_reward``): its
    ``uses_step_rewards`` attribute, True/False or a function of the options; an estimator without one does not."""
    flag = getattr(fn, "uses_step_rewards", False)
    return bool(flag(options) if callable(flag) else flag)


def _index_segments(rollouts: Rollouts) -> tuple[np.ndarray, int, np.ndarray]:
    """A dense code per (group, turn index) pair that occurs, found without a sort: group g's turn indices are
    0..M_g-1 (M_g its longest trajectory), so pair (g, t) gets offset_g + t. Memory is O(turns), not
    groups x longest trajectory. Also returns each trajectory's first code, offset_g."""
    longest = np.zeros(rollouts.n_groups, dtype=np.int64)
    np.maximum.at(longest, rollouts.group, rollouts.turns)
    first = (np.cumsum(longest) - longest)[rollouts.group]
    # offset_g + t = (offset_g - the trajectory's first turn in the flat list) + the turn's flat position
    shift = first - (np.cumsum(rollouts.turns) - rollouts.turns)
    return np.repeat(shift, rollouts.turns) + np.arange(len(rollouts.lengths)), int(longest.sum()), first


Estimator = Callable[..., Advantages]
