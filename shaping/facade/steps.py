"""Trainer step counters, read one way in every adapter: planshape's ``step`` is the number of optimizer steps
completed before a batch, so the first batch is step 0 (VERL ``global_steps - 1``, TRL
``trainer_state.global_step``, OpenRLHF ``global_step``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def as_step(step: Any) -> int:
    """Steps are trainer-supplied (configuration-grade): a bad one raises, naming what was given."""
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 0:
        raise ValueError(f"step must be an int >= 0 (optimizer steps completed), got {step!r}")
    return int(step)


def trainer_step(counter: Any, field: str) -> int:
    """A trainer's step counter as an int (TRL's ``global_step``, OpenRLHF's ``global_step``): a whole, finite
    number >= 0, else ``ValueError`` naming ``field`` and what was given."""
    value = counter.item() if isinstance(counter, np.generic) else counter
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value) or value < 0:
        raise ValueError(f"{field} must be a whole number of steps >= 0 (the trainer's step counter), got "
                         f"{counter!r}")
    return int(value)


def steps_completed(step_being_run: Any, field: str = "global_steps") -> int | None:
    """planshape's step from a trainer counter that starts at 1 for the first step (VERL's ``global_steps``): one
    less, never below 0; None when there is no counter. A counter that is not a whole number (``inf``, ``"x"``,
    ``True``) is a trainer-side error: ``ValueError`` naming ``field``."""
    if step_being_run is None:
        return None
    return max(trainer_step(step_being_run, field) - 1, 0)
