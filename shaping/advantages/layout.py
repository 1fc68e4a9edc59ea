"""Row-per-turn batches (VERL multi-output agent loops, verl-agent- and agent-lightning-style): a trajectory is
spread over several rows that share a trajectory id. They are gathered into one entry per trajectory, so a
30-turn trajectory is one sample of every group statistic, not 30, and its turns keep their order for the
per-turn-index groupings; the estimator's per-turn values are then put back on the rows they came from.

A trajectory's outcome is its final row's score. The other rows' scores (``ROW_REWARDS``) are read as
``"turn"``: each row's score is the reward of its (last) turn, the environment's per-step reward
(``Rollouts.step_reward``); or ``"copy"``: each repeats the outcome (or is 0), as agent loops that write the
session's reward on every output do; ``"auto"`` (default) reads copies when every non-final row of the batch is 0 or
its trajectory's final score, and per-turn rewards otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .estimators import Rollouts
from .inputs import group_codes, success_flags

ROW_REWARDS = ("auto", "turn", "copy")


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
                turn_order: Sequence[int] | np.ndarray | None = None, row_anchor: np.ndarray | None = None,
                rows: str = "auto", row_step: np.ndarray | None = None) -> TurnRows:
    """Rows -> trajectories. A trajectory's turns are its rows' turns, rows taken by ``turn_order`` (default:
    batch order, which is the order agent loops emit them; give it where the trainer reorders rows). Its
    reward and success are those of its final row, where every agent loop writes the outcome; the other rows'
    scores are read by ``rows`` (module docstring). Its group is its rows' group, which must be the same on every
    row. ``row_anchor``: each turn's anchor state code, in the rows' row-major turn order (like ``row_lengths``);
    ``row_step``: each turn's reward besides the outcome, likewise (added to what the rows' scores give)."""
    if rows not in ROW_REWARDS:
        raise ValueError(f"unknown row reward reading {rows!r}; choose one of {ROW_REWARDS}")
    trajectory = group_codes(trajectory_ids)
    groups = group_codes(group_ids)
    n_rows = len(trajectory)
    if not (len(groups) == len(reward) == len(row_turns) == n_rows):
        raise ValueError(f"trajectory ids ({n_rows}), group ids ({len(groups)}), scores ({len(reward)}) and "
                         f"mask rows ({len(row_turns)}) must have one entry per row")
    order = np.arange(n_rows) if turn_order is None else np.asarray(turn_order)
    if order.shape != (n_rows,) or order.dtype.kind not in "iu":
        raise ValueError(f"turn_order must hold one integer per row, got {order.dtype} {order.shape}")
    order_rows = np.lexsort((order, trajectory))  # rows by trajectory, then by turn order
    n_traj = int(trajectory.max()) + 1 if n_rows else 0
    sorted_traj = trajectory[order_rows]
    last = (order_rows[np.r_[sorted_traj[1:] != sorted_traj[:-1], True]] if n_rows
            else order_rows)  # each trajectory's final row
    first_group = np.full(n_traj, -1, dtype=np.int64)
    first_group[sorted_traj[::-1]] = groups[order_rows[::-1]]
    mixed = first_group[trajectory] != groups
    if mixed.any():
        r = int(np.flatnonzero(mixed)[0])
        raise ValueError(f"row {r}: its trajectory's rows carry different group ids; a trajectory belongs to one "
                         "prompt group")
    flags = success_flags(success, n_rows)
    turns = np.bincount(trajectory, weights=row_turns, minlength=n_traj).astype(np.int64)
    start = np.cumsum(row_turns) - row_turns
    counts = row_turns[order_rows]
    take = np.repeat(start[order_rows] - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
    anchor = None if row_anchor is None else np.asarray(row_anchor)[take]
    reward = np.asarray(reward, dtype=np.float64)
    step = _row_step_rewards(reward, trajectory, last, row_turns, start, rows)
    if row_step is not None:
        step = np.asarray(row_step, dtype=np.float64) + (0.0 if step is None else step)
    rollouts = Rollouts(first_group, reward[last], flags[last], turns, np.asarray(row_lengths)[take], anchor,
                        None if step is None else step[take])
    return TurnRows(rollouts, trajectory, take)


def _row_step_rewards(reward: np.ndarray, trajectory: np.ndarray, last: np.ndarray, row_turns: np.ndarray,
                      start: np.ndarray, rows: str) -> np.ndarray | None:
    """The non-final rows' scores as per-turn rewards on each row's last turn (row-major turn order), or None when
    they are read as copies of the outcome (``rows``; module docstring)."""
    non_final = np.ones(len(reward), dtype=bool)
    non_final[last] = False
    outcome = reward[last][trajectory]  # ``last`` holds each trajectory's final row, by trajectory code
    copies = (reward == 0) | (reward == outcome)
    if rows == "copy" or (rows == "auto" and bool(np.all(copies[non_final]))):
        odd = non_final & ~copies
        if odd.any():
            r = int(np.flatnonzero(odd)[0])
            raise ValueError(f"row {r} scores {reward[r]:g}, neither 0 nor its trajectory's outcome {outcome[r]:g} "
                             "(step_rewards.rows=copy reads non-final rows as copies of the outcome); use "
                             "step_rewards.rows=turn where each row's score is its turn's reward")
        return None
    carrying = non_final & (reward != 0)
    empty = carrying & (row_turns == 0)
    if empty.any():
        r = int(np.flatnonzero(empty)[0])
        raise ValueError(f"row {r} scores {reward[r]:g} but has no assistant turn to carry it (its mask is all 0)")
    step = np.zeros(int(row_turns.sum()))
    rows_with_turns = np.flatnonzero(carrying)
    step[start[rows_with_turns] + row_turns[rows_with_turns] - 1] = reward[rows_with_turns]
    return step
