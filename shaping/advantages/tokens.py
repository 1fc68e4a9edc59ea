"""From a trainer's tensors to per-token advantages: scores + assistant mask + group ids -> (B, L) tensor.

This is the whole job of an adapter's estimator: find turns in the mask, compute per-turn advantages in
numpy, broadcast them back in torch on the mask's device.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    anchor: np.ndarray | None = None,
    **options: Any,
) -> tuple[torch.Tensor, Advantages]:
    """Per-token advantages (0 outside assistant turns) and the per-turn result behind them.

    ``success`` flags each trajectory (decided by ``Shaper.success_of``; none: all False, as GRPO needs no
    flags). ``spans``: the mask's turns, when the caller has them already. ``anchor``: each turn's anchor state
    code (``anchors.anchor_codes``), for GiGPO.
    ``options`` go to the estimator (its own signature rejects an unknown one).
    """
    reward = torch.as_tensor(scores).detach().double().cpu().numpy().reshape(-1)
    if success is None:
        success = np.zeros(len(reward), dtype=bool)
    spans = spans if spans is not None else turn_spans(mask)
    turns, lengths = spans.numpy()
    rollouts = Rollouts(group_codes(index), reward, success, turns, lengths, anchor)  # Rollouts checks every field
    result = estimator(rollouts, **options)
    return broadcast(result.per_turn, mask, spans), result
