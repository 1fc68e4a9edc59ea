"""planshape's estimators as one VERL advantage estimator (``algorithm.adv_estimator=planpo``; which one runs:
``+algorithm.planpo.estimator=planpo|grpo|gigpo|rloo``), registered by ``register.py``.

VERL calls a registered estimator with the padded ``token_level_rewards`` and ``response_mask`` of the
batch, the prompt-group ids (``index``, from ``uid``) and the ``algorithm`` config section, nothing else (in
V1 the advantage step fetches a fixed field list). So: the score is the row sum of the token rewards; turns
are the runs of 1s in ``response_mask`` (assistant tokens; tool observations are 0s) and the facade derives
them; groups come from ``index`` (rows arrive reordered by ``_balance_batch``, so never from row order);
success is recovered from the score at this step (``Shaper.success_from_rewards``), or, with ``success.by=flag``,
is the per-row flag the ``planshape`` V1 trainer fetched from the reward's extra info, as are GiGPO's anchor
states and the per-turn rewards an agent loop keeps beside the outcome (with ``step_rewards.field``); in V1's
multi-output sessions the non-final outputs' own scores are per-turn rewards too (``step_rewards.rows``); and the
step comes from VERL's ``SkipManager.step``, which both trainers set to ``global_steps`` in the driver process
before the advantage step (minus 1 for planshape's "completed steps" convention). Where it is unset (a direct call
outside a trainer), the estimator counts its own calls in this process and says so once in the log.

VERL hands an estimator neither per-row fields nor a metrics sink, so the planshape trainer (``trainer.py``) runs
VERL's advantage step inside ``advantage_step(success=..., anchors=..., step_rewards=...)``: the rows' flags, states
and per-turn rewards go down to the multi-output dispatch (``multi_output.py``) and the estimator's statistics come
back up in the ``AdvantageStep`` it yields, through a context variable that holds that one call's values (nothing
outlives the step).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .version import check_version

check_version()  # one line naming the range outside it, before VERL's own imports can fail obscurely

import numpy as np  # noqa: E402
import torch  # noqa: E402
from planshape.shaping.facade import (  # noqa: E402
    ConfigError,
    Shaper,
    StepRewardsIgnored,
    TokenAdvantages,
    steps_completed,
)

from .config import algorithm_block, run_shaper, verl_setting  # noqa: E402
from .settings_refused import algorithm_refusals, refuse  # noqa: E402

NAME = "planpo"
logger = logging.getLogger(__name__)



@dataclass
class AdvantageStep:
    """One advantage step of the planshape trainer: what it hands the estimator beside VERL's arguments (each row's
    success flag, anchor states and per-turn rewards besides the outcome, by TransferQueue key; None when it fetched
    none) and what it gets back (the estimator's statistics, every name of ``Shaper.advantage_metric_names``)."""

    success: dict[str, bool] | None = None
    anchors: dict[str, list[Any]] | None = None
    step_rewards: dict[str, list[float]] | None = None
    stats: dict[str, float] = field(default_factory=dict)


_CURRENT: ContextVar[AdvantageStep | None] = ContextVar("planshape_advantage_step", default=None)


@contextmanager
def advantage_step(success: dict[str, bool] | None = None, anchors: dict[str, list[Any]] | None = None,
                   step_rewards: dict[str, list[float]] | None = None) -> Iterator[AdvantageStep]:
    """Run VERL's advantage step inside: the estimator and the multi-output dispatch read this step's rows, and
    the estimator leaves its statistics in the ``AdvantageStep`` yielded."""
    token = _CURRENT.set(AdvantageStep(success, anchors, step_rewards))
    try:
        yield _CURRENT.get()  # type: ignore[misc]  # set just above
    finally:
        _CURRENT.reset(token)


def current_step() -> AdvantageStep | None:
    """The advantage step in progress in this context (None outside ``advantage_step``)."""
    return _CURRENT.get()


@dataclass
class CallCount:
    """The step of an estimator called outside a trainer: its calls in this process, and whether it said so."""

    calls: int = 0
    warned: bool = False


fallback = CallCount()


def flag_refusal(flag: str | None) -> str:
    """Why ``success.by=flag`` needs the planshape trainer, and what to set instead (the one message)."""
    return (f"success.by=flag (flag {flag!r}) needs trainer.use_v1=true trainer.v1.trainer_mode=planshape: only that "
            "trainer hands the estimator each row's reward extra info (VERL 0.9 passes an estimator the token "
            "rewards, the mask and the uids); select it, or use +algorithm.planpo.success.by=threshold "
            "+algorithm.planpo.success.threshold=<R of a success> (the PlanPO paper: 10)")


def anchor_refusal(shaper: Shaper) -> str:
    """Why an estimator over anchor states (GiGPO) needs the planshape trainer, and what it reads (one message)."""
    where = (f"each row's extra_fields[{shaper.config.anchor.field!r}] (your agent loop's, one state id per assistant "
             "turn of the row)" if shaper.config.anchor_key == "state" else
             "the tool calls of each row's responses (anchor.by=tool_calls)")
    return (f"estimator {shaper.config.estimator!r} groups turns by anchor state, which VERL 0.9 hands no estimator: "
            f"set trainer.use_v1=true trainer.v1.trainer_mode=planshape, whose advantage step reads them from {where}")


def step_reward_refusal(shaper: Shaper) -> str:
    """Why per-turn rewards from ``step_rewards.field`` need the planshape trainer (the one message)."""
    return (f"step_rewards.field={shaper.step_reward_field!r}: per-turn rewards kept in each row's extra_fields reach "
            "no estimator in VERL 0.9 (it passes the token rewards, the mask and the uids): set trainer.use_v1=true "
            "trainer.v1.trainer_mode=planshape, whose advantage step reads them, or put each turn's reward on an "
            "output of its own (a multi-output agent loop: the non-final outputs' scores are read as per-turn rewards)")


def trainer_step() -> int | None:
    """Completed optimizer steps according to VERL's driver, or None outside a trainer's ``fit``."""
    try:
        from verl.utils.skip.skip_manager import SkipManager
    except ImportError:  # 0.7/0.8: no trainer records its step where an estimator can read it (support.py)
        return None
    step = getattr(SkipManager, "step", None)
    return steps_completed(step) if isinstance(step, int) and step >= 1 else None


def _step() -> int:
    step = trainer_step()
    if step is not None:
        return step
    if not fallback.warned:
        from .support import STEP, SUPPORT

        why = SUPPORT.gate(STEP) or "VERL's SkipManager.step is not set (not inside a trainer's fit?)"
        logger.warning("planpo: %s; counting estimator calls in this process as the step instead", why)
        fallback.warned = True
    fallback.calls += 1
    return fallback.calls - 1


def token_advantages(shaper: Shaper, scores: Any, mask: torch.Tensor, index: Any, step: int, success: Any = None,
                     anchors: Sequence[Sequence[Any]] | None = None,
                     step_rewards: Sequence[Sequence[float]] | None = None, *, trajectory: Any = None,
                     turn_order: Any = None) -> TokenAdvantages:
    """The estimator entry (the adapter contract): the facade's per-token advantages of VERL's batch, groups from
    its ``uid`` strings; ``trajectory`` / ``turn_order``: V1's multi-output sessions as one trajectory each."""
    return shaper.advantages(scores, mask, np.asarray(index, dtype=object), step, success=success,
                             trajectory=trajectory, turn_order=turn_order, anchors=anchors, step_rewards=step_rewards)


def compute_planpo_advantage(token_level_rewards: torch.Tensor, response_mask: torch.Tensor,
                             index: np.ndarray | None = None, config: Any = None,
                             reward_baselines: torch.Tensor | None = None, trajectory: Any = None,
                             turn_order: Any = None, success: Any = None, anchors: Any = None,
                             step_rewards: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
    """VERL's estimator contract: the keyword arguments ``compute_advantage`` passes (0.7.1 to 0.9.x); returns
    (advantages, returns), both (B, L), zero outside the response mask. ``trajectory`` / ``turn_order``: the
    row-per-turn layout of V1's multi-output sessions; ``success``: per-row flags; ``anchors``: per row, the
    anchor state of each of its turns; ``step_rewards``: per row, each of its turns' reward besides the outcome
    (all from ``multi_output.py``)."""
    if index is None:
        raise ValueError("planpo needs the prompt-group ids (VERL passes them as 'index' from the batch's 'uid')")
    shaper = run_shaper(algorithm_block(config))
    shaper.require_estimator(f"algorithm.adv_estimator={NAME}")
    refuse(algorithm_refusals(config, shaper))
    if shaper.success_flag is not None and success is None:
        raise ConfigError(flag_refusal(shaper.success_flag))
    if shaper.uses_anchors and anchors is None:
        raise ConfigError(anchor_refusal(shaper))
    if shaper.step_reward_field is not None and step_rewards is None:
        raise ConfigError(step_reward_refusal(shaper))
    scores = token_level_rewards.sum(dim=-1).detach().float().cpu().numpy()
    try:
        result = token_advantages(shaper, scores, response_mask, index, _step(), success=success, anchors=anchors,
                                  step_rewards=step_rewards, trajectory=trajectory, turn_order=turn_order)
    except StepRewardsIgnored as exc:
        raise StepRewardsIgnored(verl_setting(str(exc))) from None
    step = current_step()
    if step is not None:
        step.stats.update(result.stats)
    tokens = result.tokens.to(device=token_level_rewards.device, dtype=token_level_rewards.dtype)
    return tokens, tokens


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import TokenAdvantagesFn

    _contract: TokenAdvantagesFn = token_advantages
