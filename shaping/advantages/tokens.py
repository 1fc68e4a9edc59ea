"""From a trainer's tensors to per-token advantages: scores + assistant mask + group ids -> (B, L) tensor.

This is the whole job of an adapter's estimator: find turns in the mask, compute per-turn advantages in
numpy, broadcast them back in torch on the mask's device.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .estimators import Advantages, Estimator, Rollouts, group_codes
from .turns import TurnSpans, broadcast, torch, turn_spans  # turns says how to install torch when it is missing


def token_advantages(
    scores: torch.Tensor | np.ndarray,
    mask: torch.Tensor,
    index: Sequence[Any] | np.ndarray,
    estimator: Estimator,
    success: np.ndarray | None = None,
    spans: TurnSpans | None = None,
    anchors: Sequence[Sequence[Any]] | None = None,
    **options: Any,
) -> tuple[torch.Tensor, Advantages]:
    """Per-token advantages (0 outside assistant turns) and the per-turn result behind them.

    ``success`` flags each trajectory (decided by ``Shaper.success_of``; none: all False, as GRPO needs no
    flags). ``spans``: the mask's turns, when the caller has them already. ``anchors``: per row, the anchor state id
    of each of its turns, for GiGPO.
    ``options`` go to the estimator (its own signature rejects an unknown one).
    """
    reward = torch.as_tensor(scores).detach().double().cpu().numpy().reshape(-1)
    if success is None:
        success = np.zeros(len(reward), dtype=bool)
    batch = batch_advantages(reward, mask, index, success, estimator, spans=spans, anchors=anchors, **options)
    return batch.tokens, batch.result


@dataclass(frozen=True)
class BatchAdvantages:
    """A trainer batch's advantages in either layout: ``rollouts`` and ``result`` per trajectory (what every
    statistic counts once), the rest per row and per row-major turn (what goes back to the trainer)."""

    tokens: torch.Tensor  # (B, L)
    rollouts: Rollouts  # one entry per trajectory
    result: Advantages  # the estimator's, per trajectory and trajectory-major turn
    group_ids: list[Any]  # each trajectory's group, as the verdict log records it
    per_row: np.ndarray  # (B,) each row's trajectory-level term
    per_turn: np.ndarray  # (sum T,) each row-major turn's advantage
    turn_term: np.ndarray  # (sum T,) each row-major turn's turn-level term
    turns: np.ndarray  # (B,) assistant turns per row
    lengths: np.ndarray  # (sum T,) generated tokens per row-major turn


def batch_advantages(scores: np.ndarray, mask: torch.Tensor, index: Sequence[Any] | np.ndarray, success: np.ndarray,
                     estimator: Estimator, trajectory: Sequence[Any] | np.ndarray | None = None,
                     turn_order: Sequence[int] | np.ndarray | None = None, spans: TurnSpans | None = None,
                     anchors: Sequence[Sequence[Any]] | None = None,
                     step_rewards: Sequence[Sequence[float]] | None = None, row_rewards: str = "auto",
                     anchor_similarity: float | None = None, check: Any = None, **options: Any) -> BatchAdvantages:
    """``estimator`` on a batch of rows: each row a whole trajectory, or (``trajectory`` ids given) rows of one
    trajectory gathered first (``layout.gather_rows``, turns in ``turn_order``, the other rows' scores read by
    ``row_rewards``) and the result put back on them. ``spans``: the mask's turns, when the caller has them already.
    ``anchors``: per row, the anchor state id of each of its turns (any hashable; equal ids, the same state), for
    GiGPO, grouped by text similarity with ``anchor_similarity``; ``step_rewards``: per row, each of its turns'
    reward besides the outcome. ``check(rollouts)`` runs on the gathered rollouts before the estimator."""
    from .anchors import anchor_codes, similar_state_codes
    from .inputs import per_turn_rewards
    from .layout import gather_rows

    spans = spans if spans is not None else turn_spans(mask)
    turns, lengths = spans.numpy()
    anchor = None if anchors is None else anchor_codes(anchors, turns)
    if anchors is not None and anchor_similarity is not None:
        anchor = similar_state_codes([x for row in anchors for x in row], np.repeat(group_codes(index), turns),
                                     anchor_similarity)
    step = None if step_rewards is None else per_turn_rewards(step_rewards, turns)
    if trajectory is None:
        rollouts = Rollouts(group_codes(index), scores, success, turns, lengths, anchor, step)  # every field checked
        if check is not None:
            check(rollouts)
        result = estimator(rollouts, **options)
        groups = index.tolist() if hasattr(index, "tolist") else list(index)
        return BatchAdvantages(broadcast(result.per_turn, mask, spans), rollouts, result, groups, result.trajectory,
                               result.per_turn, result.turn, turns, lengths)
    rows = gather_rows(trajectory, index, scores, success, turns, lengths, turn_order, anchor, row_rewards, step)
    if check is not None:
        check(rows.rollouts)
    result = estimator(rows.rollouts, **options)
    per_turn = rows.to_rows(result.per_turn)
    return BatchAdvantages(broadcast(per_turn, mask, spans), rows.rollouts, result, rows.rollouts.group.tolist(),
                           result.trajectory[rows.trajectory], per_turn, rows.to_rows(result.turn), turns, lengths)
