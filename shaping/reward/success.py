"""THE success rule: what counts as a successful sample for PlanPO's success-conditioned terms (and for a trainer's
filtering), the same for a score, a batch of scalar rewards and carried samples, in every adapter."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..advantages.inputs import success_flags
from ..config import Success
from .weighing import Weighing


@dataclass(frozen=True)
class SuccessRule:
    """The config's ``success`` over the weighing whose stage maximum ``by: pass`` reads.

    >>> from planshape.shaping.schedules import PRESETS
    >>> rule = SuccessRule(Weighing(PRESETS["stage2"]))
    >>> rule.of(np.array([3.0, 2.0]), step=0).tolist()  # the stage's maximum (3) implies the final pass
    [True, False]
    """

    weighing: Weighing
    success: Success = field(default_factory=Success)

    @property
    def flag(self) -> str | None:
        """The trainer's per-sample field that decides success (``success.by=flag``), else None: the one question
        every adapter asks before reading flags."""
        return self.success.flag if self.success.by == "flag" else None

    def of(self, rewards: np.ndarray, step: int, passed: np.ndarray | None = None) -> np.ndarray:
        """Success of each sample, used by every path. ``threshold``: reward >= threshold. ``flag``: the trainer's
        per-sample flags, given as ``passed``. ``pass``: the final pass, read from ``passed`` when the caller has the
        components, else from the reward reaching the stage's maximum, which implies the final pass for every
        schedule the config accepted (``config.success_readable_from_reward``)."""
        if self.success.by == "threshold":
            return np.asarray(rewards) >= self.success.threshold
        if passed is not None:
            return success_flags(passed, len(rewards))  # 0/1 only: 0.5, NaN or "False" is an error
        if self.flag is not None:
            raise ValueError(f"success.by='flag': pass the trainer's per-sample {self.flag!r} flags (the adapter "
                             "reads them); they cannot be read from the reward")
        top = self.weighing.max_reward(step)
        return np.asarray(rewards) >= top - 1e-6 * max(1.0, top)

    def one(self, reward: float, passed: bool) -> bool:
        """One checked sample's success (``passed``: its final pass)."""
        if self.success.by == "threshold":
            return bool(reward >= self.success.threshold)  # type: ignore[operator]  # set when by=threshold
        return passed
