"""PlanPO as a VERL advantage estimator (``algorithm.adv_estimator=planpo``), registered by ``register.py``.

VERL calls a registered estimator with the padded ``token_level_rewards`` and ``response_mask`` of the
batch, the prompt-group ids (``index``, from ``uid``) and the ``algorithm`` config section, nothing else (in
V1 the advantage step fetches a fixed field list). So: the score is the row sum of the token rewards; turns
are the runs of 1s in ``response_mask`` (assistant tokens; tool observations are 0s) and the facade derives
them; groups come from ``index`` (rows arrive reordered by ``_balance_batch``, so never from row order);
success is recovered from the score at this step (``Shaper.success_from_rewards``); and the step comes from
VERL's ``SkipManager.step``, which both trainers set to ``global_steps`` in the driver process before the
advantage step (minus 1 for planshape's "completed steps" convention). Where it is unset (a direct call
outside a trainer), the estimator counts its own calls in this process and says so once in the log.
"""

from __future__ import annotations

import logging
from typing import Any

from .version import check_version

check_version()  # a clear message outside VERL 0.9.x, before VERL's own imports can fail obscurely

import numpy as np  # noqa: E402
import torch  # noqa: E402
from planshape.shaping.facade import Shaper  # noqa: E402

from .config import algorithm_block, shaper_for  # noqa: E402

NAME = "planpo"
logger = logging.getLogger(__name__)

_fallback = {"calls": 0, "warned": False}
# The statistics of the latest call: VERL gives estimators no metrics sink, so the planshape trainer
# (``trainer.py``) reads them here after its advantage step and logs them with that step's metrics.
last_stats: dict[str, float] = {}


def trainer_step() -> int | None:
    """Completed optimizer steps according to VERL's driver, or None outside a trainer's ``fit``."""
    try:
        from verl.utils.skip.skip_manager import SkipManager
    except ImportError:  # pragma: no cover - present in every 0.9.x
        return None
    step = getattr(SkipManager, "step", None)
    return Shaper.steps_completed(step) if isinstance(step, int) and step >= 1 else None


def _step() -> int:
    step = trainer_step()
    if step is not None:
        return step
    if not _fallback["warned"]:
        logger.warning("planpo: VERL's SkipManager.step is not set (not inside a trainer's fit?); counting "
                       "estimator calls in this process as the step instead")
        _fallback["warned"] = True
    step = _fallback["calls"]
    _fallback["calls"] += 1
    return step


def compute_planpo_advantage(token_level_rewards: torch.Tensor, response_mask: torch.Tensor,
                             index: np.ndarray | None = None, config: Any = None,
                             reward_baselines: torch.Tensor | None = None, trajectory: Any = None,
                             turn_order: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
    """VERL's estimator contract: the keyword arguments ``compute_advantage`` passes in 0.9.1; returns
    (advantages, returns), both (B, L), zero outside the response mask. ``trajectory`` / ``turn_order``: the
    row-per-turn layout of V1's multi-output sessions (``multi_output.py``)."""
    if index is None:
        raise ValueError("planpo needs the prompt-group ids (VERL passes them as 'index' from the batch's 'uid')")
    shaper = shaper_for(algorithm_block(config))
    scores = token_level_rewards.sum(dim=-1).detach().float().cpu().numpy()
    result = shaper.advantages(scores, response_mask, np.asarray(index, dtype=object), _step(),
                               trajectory=trajectory, turn_order=turn_order)
    last_stats.clear()
    last_stats.update(result.stats)
    tokens = result.tokens.to(device=token_level_rewards.device, dtype=token_level_rewards.dtype)
    return tokens, tokens
