"""Checked once, weighed at the trainer's step: a trainer whose rollout workers score before they know the step
(OpenRLHF) sends each sample's components beside its reward, and the trainer weighs them again at its step. The
verdicts do not depend on the step, only the stage's weights do, so no plan is checked twice."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..components import COMPONENTS
from ..observe.metric_names import core_metrics, metric_name
from ..reward import weighted_sum
from .steps import as_step
from .success import SuccessRule

if TYPE_CHECKING:
    from ..scores import SampleScore


@dataclass(frozen=True)
class Carried:
    """Samples checked at rollout, weighed at the trainer's step: one value per sample each."""

    reward: np.ndarray
    success: np.ndarray
    metrics: dict[str, np.ndarray]  # every logged name of ``Shaper.metric_names`` that was carried


class Reweighing(SuccessRule):
    """``weigh`` / ``reweigh`` a checked sample at another step, and the ``carried`` form that travels."""

    metric_names: tuple[str, ...]

    def weigh(self, components: Mapping[str, Any], step: int) -> Any:
        """The reward at ``step`` of components checked earlier (floats, or one array per component): no sandbox
        is opened, so a trainer process can weigh what its rollout workers checked."""
        return weighted_sum(components, {**self.config.component_weights, **self.schedule.weights(as_step(step))})

    def reweigh(self, scored: SampleScore, step: int) -> SampleScore:
        """A score checked at one step, weighed at another: how a trainer that scores at rollout, before it knows
        the step, checks each sample once."""
        step = as_step(step)
        reward = float(self.weigh(scored.components, step))
        return replace(scored, reward=reward, success=self._success(reward, scored.components, step), step=step,
                       stage=self.schedule.stage(step).name)

    @property
    def carried_names(self) -> tuple[str, ...]:
        """The keys of ``carried``, in order."""
        return tuple(dict.fromkeys((*self.metric_names, *(metric_name(k) for k in COMPONENTS))))

    def carried(self, scored: SampleScore) -> dict[str, float]:
        """What a rollout worker that cannot know the step sends the trainer beside the reward: every metric, and
        the six components always, which ``weigh_carried`` reads back at the trainer's step."""
        return {**scored.metrics(), **{metric_name(k): float(scored.components.get(k, 0.0)) for k in COMPONENTS}}

    def weigh_carried(self, columns: Mapping[str, Any], step: int) -> Carried:
        """Carried samples (``carried``, one column per name) at ``step``: reward and success from the components,
        the metrics to log (``core`` at this step, components kept only where the config logs them)."""
        try:
            components = {k: np.asarray(columns[metric_name(k)], dtype=np.float64) for k in COMPONENTS}
        except KeyError as exc:
            raise ValueError(f"no {exc.args[0]!r} among the carried columns: the samples were not scored by "
                             "planshape's rollout side (Shaper.carried)") from None
        reward = np.asarray(self.weigh(components, step), dtype=np.float64)
        success = self.success_of(reward, as_step(step), components["pass"] == 1.0)
        logged = {name: np.asarray(columns[name], dtype=np.float64) for name in self.metric_names if name in columns}
        if "core" in self.config.metrics:
            logged.update(core_metrics(reward, success.astype(np.float64)))
        return Carried(reward, success, logged)
