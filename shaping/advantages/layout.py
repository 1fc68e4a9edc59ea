"""Row-per-turn batches (VERL multi-output agent loops, verl-agent- and agent-lightning-style): a trajectory is
spread over several rows that share a trajectory id. They are gathered into one entry per trajectory, so a
30-turn trajectory is one sample of every group statistic, not 30, and its turns keep their order for the
per-turn-index groupings; the estimator's per-turn values are then put back on the rows they came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .estimators import Rollouts
from .inputs import group_codes, success_flags


@dataclass(frozen=True)
class TurnRows:
    """``rollouts``: one entry per trajectory; ``trajectory``: each row's trajectory (an index into rollouts);
    ``take``: for each turn of the trajectory-major list, its position in the rows' row-major turn list."""

    rollouts: Rollouts
    trajectory: np.ndarray
    take: np.ndarray

    def to_rows(self, per_turn: np.ndarray) -> np.ndarray:
        """Per-turn values of the trajectory-major list, in the rows' row-major turn order."""
        out = np.empty(len(self.take), dtype=np.float64)
        out[self.take] = per_turn
        return out


def gather_rows(trajectory_ids: Sequence[Any] | np.ndarray, group_ids: Sequence[Any] | np.ndarray,
                reward: np.ndarray, success: np.ndarray, row_turns: np.ndarray, row_lengths: np.ndarray,
                turn_order: Sequence[int] | np.ndarray | None = None, row_anchor: np.ndarray | None = None
                ) -> TurnRows:
    """Rows -> trajectories. A trajectory's turns are its rows' turns, rows taken by ``turn_order`` (default:
    batch order, which is the order agent loops emit them; give it where the trainer reorders rows). Its
    reward and success are those of its final row, where every agent loop writes the outcome (a row carrying
    a copy of it is also fine). Its group is its rows' group, which must be the same on every row.
    ``row_anchor``: each turn's anchor state code, in the rows' row-major turn order (like ``row_lengths``)."""
    trajectory = group_codes(trajectory_ids)
    groups = group_codes(group_ids)
    n_rows = len(trajectory)
    if not (len(groups) == len(reward) == len(row_turns) == n_rows):
        raise ValueError(f"trajectory ids ({n_rows}), group ids ({len(groups)}), scores ({len(reward)}) and "
                         f"mask rows ({len(row_turns)}) must have one entry per row")
    order = np.arange(n_rows) if turn_order is None else np.asarray(turn_order)
    if order.shape != (n_rows,) or order.dtype.kind not in "iu":
        raise ValueError(f"turn_order must hold one integer per row, got {order.dtype} {order.shape}")
    rows = np.lexsort((order, trajectory))  # rows by trajectory, then by turn order
    n_traj = int(trajectory.max()) + 1 if n_rows else 0
    sorted_traj = trajectory[rows]
    last = rows[np.r_[sorted_traj[1:] != sorted_traj[:-1], True]] if n_rows else rows  # each trajectory's final row
    first_group = np.full(n_traj, -1, dtype=np.int64)
    first_group[sorted_traj[::-1]] = groups[rows[::-1]]
    mixed = first_group[trajectory] != groups
    if mixed.any():
        r = int(np.flatnonzero(mixed)[0])
        raise ValueError(f"row {r}: its trajectory's rows carry different group ids; a trajectory belongs to one "
                         "prompt group")
    flags = success_flags(success, n_rows)
    turns = np.bincount(trajectory, weights=row_turns, minlength=n_traj).astype(np.int64)
    start = np.cumsum(row_turns) - row_turns
    counts = row_turns[rows]
    take = np.repeat(start[rows] - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
    anchor = None if row_anchor is None else np.asarray(row_anchor)[take]
    rollouts = Rollouts(first_group, np.asarray(reward, dtype=np.float64)[last], flags[last], turns,
                        np.asarray(row_lengths)[take], anchor)
    return TurnRows(rollouts, trajectory, take)
