"""The advantage job of a ``Shaper``: the configured estimator at a step, from a trainer's (scores, assistant mask,
group ids) to per-token advantages and the statistics to log, each trajectory counted once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import plugins
from ..advantages.inputs import success_flags
from ..config import StepRewardsIgnored, step_rewards_ignored, takes_alpha
from ..observe.metric_names import AdvantageStats, MetricNames
from ..scores import TokenAdvantages

if TYPE_CHECKING:
    import torch

    from ..advantages import Advantages, Rollouts
    from ..config import ShapingConfig
    from ..observe.sample_log import SampleLog
    from ..reward import SuccessRule


class AdvantageEstimator:
    """The config's estimator with its options and α(k), the success rule it reads flags by, and where its records
    and statistics go (``log``: the process's verdict log, or None).

    >>> from planshape.shaping.config import ShapingConfig
    >>> from planshape.shaping.reward import SuccessRule, Weighing
    >>> config = ShapingConfig.from_mapping({"success": {"by": "threshold", "threshold": 1}, "total_steps": 10})
    >>> part = AdvantageEstimator(config, SuccessRule(Weighing(config.schedule_object()), config.success),
    ...                           MetricNames((), monitor=False))
    >>> part.alpha(0), part.alpha(10)  # PlanPO's α decays from init to final over total_steps
    (0.1, 0.05)
    """

    def __init__(self, config: ShapingConfig, success: SuccessRule, names: MetricNames,
                 log: Callable[[], SampleLog | None] = lambda: None):
        self.config = config
        self.fn = plugins.estimators()[config.estimator]
        self.decay = config.alpha_decay()
        self.success = success
        self.names = names
        self._log = log

    @property
    def uses_anchors(self) -> bool:
        return bool(getattr(self.fn, "uses_anchors", False))

    def alpha(self, step: int) -> float:
        """PlanPO's α(k) at ``step`` (0 for an estimator without α; a ``ConfigError`` when the config leaves out what
        α's decay needs: ``ShapingConfig.require_estimator``)."""
        if not takes_alpha(self.fn):
            return 0.0
        self.config.require_estimator()
        return self.decay(step)

    def options(self, step: int) -> dict[str, Any]:
        """The estimator's keyword arguments at ``step``: the config's options, and α(step) when it takes α."""
        self.config.require_estimator()
        options = dict(self.config.estimator_options)
        if takes_alpha(self.fn):
            options["alpha"] = self.alpha(step)
        return options

    def estimate(self, rollouts: Rollouts, step: int) -> Advantages:
        """The estimator on per-turn rollouts at ``step`` (per-turn rewards it would ignore refused)."""
        self.check_step_rewards(rollouts)
        return self.fn(rollouts, **self.options(step))

    def check_step_rewards(self, rollouts: Rollouts) -> None:
        """Per-turn rewards reach the estimator only where it uses them: a batch that carries some under an
        estimator that would ignore them is refused (``StepRewardsIgnored``, naming the setting), never dropped."""
        if not rollouts.has_step_rewards or self.config.reads_step_rewards:
            return
        assert rollouts.step_reward is not None
        k = int(np.flatnonzero(rollouts.step_reward)[0])
        i = int(rollouts.owner[k])
        turn = k - int(np.sum(rollouts.turns[:i]))
        raise StepRewardsIgnored(
            f"this batch carries per-turn rewards besides the outcome (trajectory {i}, turn {turn}: "
            f"{rollouts.step_reward[k]:g}; from the non-final rows' scores of a row-per-turn batch, or from "
            f"step_rewards.field): {step_rewards_ignored(self.config.estimator, self.fn)}")

    def advantages(self, scores: Any, mask: torch.Tensor, index: Sequence[Any] | np.ndarray, step: int,
                   success: Any = None, trajectory: Any = None, turn_order: Any = None,
                   anchors: Sequence[Sequence[Any]] | None = None,
                   step_rewards: Sequence[Sequence[float]] | None = None) -> TokenAdvantages:
        """Per-token advantages of a batch (``Shaper.advantages`` says what each argument is)."""
        from ..advantages.tokens import batch_advantages  # torch only when asked for

        self.config.require_estimator()  # before reading success from the rewards: the message names what is missing
        reward = np.asarray(scores.detach().double().cpu() if hasattr(scores, "detach") else scores,
                            dtype=np.float64).reshape(-1)
        flags = self.success.of(reward, step) if success is None else success_flags(success, len(reward))
        batch = batch_advantages(reward, mask, index, flags, self.fn, trajectory, turn_order, anchors=anchors,
                                 step_rewards=step_rewards, row_rewards=self.config.step_rewards.rows,
                                 anchor_similarity=self.config.anchor.similarity, check=self.check_step_rewards,
                                 **self.options(step))
        ro, result = batch.rollouts, batch.result
        log = self._log()
        if log is not None:  # one record per trajectory, in either layout
            log.advantages(step, batch.group_ids, ro.reward, ro.success, ro.turns, ro.lengths, result.trajectory,
                           result.turn)
        stats = self.stats(result, ro.turns, ro.lengths, ro.success, ro.group)
        return TokenAdvantages(batch.tokens, stats, batch.per_row, batch.per_turn, batch.turn_term, batch.turns,
                               batch.lengths, flags)

    def stats(self, result: Advantages, turns: np.ndarray, lengths: np.ndarray, success: np.ndarray,
              groups: np.ndarray) -> dict[str, float]:
        """The ``advantages`` group of one batch, each trajectory counted once (``groups``: dense group codes per
        trajectory); only the names the config logs. A trajectory without an assistant token is no sample: a
        trainer's padding row (VERL pads a batch to a multiple of its data-parallel size) or an empty response is
        left out of every statistic, as it has no turn to average (``real_trajectories``)."""
        real = real_trajectories(turns)
        per_group = np.bincount(groups[real], weights=success[real].astype(np.float64), minlength=len(groups))
        present = np.bincount(groups[real], minlength=len(groups)) > 0
        return self.names.advantage_values(AdvantageStats(
            alpha=result.alpha, adv_e_mean=_mean(result.trajectory[real]), adv_e_std=_std(result.trajectory[real]),
            adv_s_mean=_mean(result.turn), adv_s_std=_std(result.turn), turns_mean=_mean(turns[real]),
            turns_max=float(turns.max(initial=0)), turn_tokens_mean=_mean(lengths),
            success_rate=_mean(success[real].astype(np.float64)), groups_multi_success=_mean(per_group[present] >= 2)))

    def describe(self) -> dict[str, Any]:
        """What the estimator uses, for ``Shaper.describe``."""
        decay, config = self.decay, self.config
        return {
            "estimator": config.estimator, "estimator_options": dict(config.estimator_options),
            "alpha": ({"init": decay.init, "final": decay.final, "steps": config.alpha_horizon}
                      if takes_alpha(self.fn) else None),
            "success": config.success.model_dump(exclude_none=True),
            "anchor": ({"by": config.anchor_key, "field": config.anchor.field,
                        **({"similarity": config.anchor.similarity} if config.anchor.similarity else {})}
                       if self.uses_anchors else None),
            "per_turn_rewards": ({"read": True, **config.step_rewards.model_dump(exclude_none=True)}
                                 if config.reads_step_rewards else "refused (the estimator reads the outcome only)"),
            "step_convention": "optimizer steps completed, from 0",
        }


def real_trajectories(turns: np.ndarray) -> np.ndarray:
    """Which trajectories are samples: those with at least one assistant turn (per-turn values, lengths and A^S,
    hold nothing of the others)."""
    return np.asarray(turns) > 0


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if len(x) else 0.0


def _std(x: np.ndarray) -> float:
    return float(x.std()) if len(x) else 0.0
