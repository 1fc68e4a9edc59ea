"""Weighing a checked plan's components by the schedule's stage at a step: the one weighted sum."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..schedules import Schedule, Stage


def weighted_sum(components: Mapping[str, Any], weights: Mapping[str, float]) -> Any:
    """``schema · Σ λ_k · component_k``; components may be floats or arrays (one value per sample). The verdicts
    do not depend on the step, only the stage's weights do, so a plan checked once can be weighed at any step.

    >>> checked = {"schema": 1.0, "cs_micro": 1.0, "hard_micro": 0.6, "cs_macro": 1.0, "hard_macro": 0.0, "pass": 0.0}
    >>> weighted_sum(checked, {"cs_micro": 1, "hard_micro": 1, "cs_macro": 1, "hard_macro": 1, "pass": 1})  # stage 1
    2.6
    >>> weighted_sum(checked, {"pass": 1})  # stage 3: only the final pass counts
    0.0
    """
    return components.get("schema", 0.0) * sum(w * components.get(k, 0.0) for k, w in weights.items())


@dataclass(frozen=True)
class Weighing:
    """A schedule's stage weights and a plugin's own component weights (default 0: logged only).

    >>> from planshape.shaping.schedules import PRESETS
    >>> weighing = Weighing(PRESETS["curriculum-8b"])
    >>> [weighing.max_reward(step) for step in (0, 100, 400)]  # stage 1, 2, 3
    [5.0, 3.0, 1.0]
    """

    schedule: Schedule
    component_weights: Mapping[str, float] = field(default_factory=dict)

    def stage(self, step: int) -> Stage:
        return self.schedule.stage(step)

    def weights(self, step: int, stage: Stage | None = None) -> dict[str, float]:
        """Every component's weight at ``step`` (in ``stage``, when the caller has it): the stage's, and the plugins'
        components'."""
        return {**self.component_weights, **(stage or self.schedule.stage(step)).weights}

    def weigh(self, components: Mapping[str, Any], step: int, stage: Stage | None = None) -> Any:
        """The reward at ``step`` of a plan's components (floats, or one array per component)."""
        return weighted_sum(components, self.weights(step, stage))

    def max_reward(self, step: int) -> float:
        """The largest reward at ``step``: every weighted component at 1, the gate open."""
        return float(sum(self.schedule.weights(step).values()))

    @property
    def staged(self) -> bool:
        """Whether the weights change with the step: a trainer must then pass the real step."""
        return len(self.schedule.stages) > 1
