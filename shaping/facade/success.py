"""THE success rule, shared by both jobs: what counts as a successful sample for PlanPO's success-conditioned
terms (and for a trainer's filtering), the same in the facade, ``planshape score`` and every adapter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .steps import as_step

if TYPE_CHECKING:
    from ..config import ShapingConfig
    from ..schedules import Schedule


class SuccessRule:
    """``success_of`` and what it reads: the config's ``success`` and the schedule's maximum."""

    config: ShapingConfig
    schedule: Schedule

    def max_reward(self, step: int) -> float:
        """The largest reward a sample can get at ``step``: every weighted component at 1, the gate open."""
        return float(sum(self.schedule.weights(as_step(step)).values()))

    def success_from_rewards(self, rewards: Sequence[float] | np.ndarray, step: int) -> np.ndarray:
        """Success flags from scalar rewards alone (what an estimator sees in VERL and TRL): ``success_of``."""
        return self.success_of(np.asarray(rewards, dtype=np.float64).reshape(-1), as_step(step))

    def _success(self, reward: float, components: Mapping[str, float], step: int) -> bool:
        return bool(self.success_of(np.asarray([reward]), step, np.asarray([components.get("pass", 0.0) == 1.0]))[0])

    @property
    def success_flag(self) -> str | None:
        """The trainer's per-sample field that decides success (``success.by=flag``), else None: the one question
        every adapter asks before reading flags."""
        return self.config.success_flag

    def success_of(self, rewards: np.ndarray, step: int, passed: np.ndarray | None = None) -> np.ndarray:
        """THE success rule, used by every path (facade, ``planshape score``, every adapter).

        ``threshold``: reward >= threshold. ``flag``: the trainer's per-sample flags, given as ``passed``.
        ``pass``: the final pass, read from ``passed`` when the caller has the components, else from the reward
        reaching the stage's maximum, which implies the final pass for every schedule the config accepted
        (``config.success_readable_from_reward``)."""
        if self.config.success.by == "threshold":
            return rewards >= self.config.success.threshold
        if self.success_flag is not None and passed is None:
            raise ValueError(f"success.by='flag': pass the trainer's per-sample {self.success_flag!r} flags "
                             "(the adapter reads them); they cannot be read from the reward")
        if passed is not None:
            from ..advantages.inputs import success_flags  # 0/1 only: 0.5, NaN or "False" is an error

            return success_flags(passed, len(rewards))
        top = self.max_reward(step)
        return rewards >= top - 1e-6 * max(1.0, top)

    @property
    def staged(self) -> bool:
        """Whether the reward's weights change with the step: a trainer must then pass the real step."""
        return self.config.staged
