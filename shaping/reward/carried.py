"""Checked once, weighed at the trainer's step: a trainer whose rollout workers score before they know the step
(OpenRLHF) sends each sample's components beside its reward (``Carry.of``), and the trainer weighs them again at
its step (``Carry.weigh``). The verdicts do not depend on the step, only the stage's weights do, so no plan is
checked twice."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..components import COMPONENTS
from ..observe.metric_names import MetricNames, core_metrics, metric_name
from .success import SuccessRule
from .weighing import Weighing

if TYPE_CHECKING:
    from ..scores import SampleScore

CARRIED_COMPONENTS = tuple(metric_name(k) for k in COMPONENTS)


@dataclass(frozen=True)
class Carried:
    """Samples checked at rollout, weighed at the trainer's step: one value per sample each."""

    reward: np.ndarray
    success: np.ndarray
    metrics: dict[str, np.ndarray]  # every logged name of ``MetricNames.sample`` that was carried


@dataclass(frozen=True)
class Carry:
    """What travels from a rollout worker to the trainer, and its weighing there."""

    weighing: Weighing
    success: SuccessRule
    names: MetricNames

    @property
    def columns(self) -> tuple[str, ...]:
        """The keys ``of`` gives, in order: every logged metric, then the six components not among them."""
        return tuple(dict.fromkeys((*self.names.sample, *CARRIED_COMPONENTS)))

    def of(self, scored: SampleScore) -> dict[str, float]:
        """What a rollout worker that cannot know the step sends beside the reward: every metric, and the six
        components always, which ``weigh`` reads back at the trainer's step."""
        return {**scored.metrics(), **{name: float(scored.components.get(k, 0.0))
                                       for k, name in zip(COMPONENTS, CARRIED_COMPONENTS, strict=True)}}

    def weigh(self, columns: Mapping[str, Any], step: int) -> Carried:
        """Carried samples (``of``, one column per name) at ``step``: reward and success from the components, the
        metrics to log (``core`` at this step, components kept only where the config logs them)."""
        try:
            components = {k: np.asarray(columns[name], dtype=np.float64)
                          for k, name in zip(COMPONENTS, CARRIED_COMPONENTS, strict=True)}
        except KeyError as exc:
            raise ValueError(f"no {exc.args[0]!r} among the carried columns: the samples were not scored by "
                             "planshape's rollout side (Shaper.carried)") from None
        reward = np.asarray(self.weighing.weigh(components, step), dtype=np.float64)
        success = self.success.of(reward, step, components["pass"] == 1.0)
        logged = {name: np.asarray(columns[name], dtype=np.float64) for name in self.names.sample if name in columns}
        if "core" in self.names.logged:
            logged.update(core_metrics(reward, success.astype(np.float64)))
        return Carried(reward, success, logged)
