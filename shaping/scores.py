"""What the facade hands a trainer: one scored output (``SampleScore``) and a batch's per-token advantages
(``TokenAdvantages``). Plain values, below the facade, so that the verdict log and the report can name them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .components import COMPONENTS, PASSED
from .observe.metric_names import GROUPS, core_metrics, failure_names, metric_name
from .observe.monitor import MONITOR_METRICS, Watch, watch_metrics
from .observe.verdict_log import CHECK_KEYS, NOT_RUN

if TYPE_CHECKING:
    import torch

COMPONENT_NAMES = tuple(metric_name(k) for k in COMPONENTS)
MONITOR_NAMES = tuple(metric_name(k) for k in MONITOR_METRICS)  # ``watch_metrics`` gives its values in this order


@dataclass(frozen=True)
class SampleScore:
    """One scored model output: what a trainer logs and what the estimator needs."""

    reward: float
    success: bool
    failure: str  # "" when the plan passes, else a countable category ("schema", "hard:valid_cost", ...)
    reason: str
    stage: str
    step: int
    components: dict[str, float]
    categories: tuple[str, ...] = field(repr=False, default=())
    verdicts: str = field(repr=False, default=NOT_RUN * len(CHECK_KEYS))  # the 13 official verdicts, p/f/n/-
    watch: Watch | None = field(repr=False, default=None)  # the reward-hacking monitor's view (config.monitor)
    level: str = field(repr=False, default="")  # the query's level and trip length (for the report's breakdown)
    days: int = field(repr=False, default=0)
    groups: tuple[str, ...] = field(repr=False, default=GROUPS)  # the metric groups logged (config.metrics)

    @property
    def official_pass(self) -> bool | None:
        """Would the official evaluator pass this plan? (None when the monitor is off.)"""
        return None if self.watch is None else self.watch.official_pass

    @property
    def exploit(self) -> bool | None:
        """Passes the official evaluator but fails the reward's strict rules (None when the monitor is off)."""
        return None if self.watch is None else self.watch.exploit

    def metrics(self) -> dict[str, float]:
        """Every metric name of ``Shaper.metric_names``, always all of them (trainers stack them per key)."""
        out: dict[str, float] = {}
        if "core" in self.groups:
            out.update(core_metrics(float(self.reward), float(self.success)))
        if "components" in self.groups:
            out.update({name: float(self.components.get(k, 0.0)) for k, name in zip(COMPONENTS, COMPONENT_NAMES,
                                                                                     strict=True)})
        if "failures" in self.groups:
            counted = self.failure or PASSED
            out.update({name: float(c == counted) for c, name in zip(self.categories,
                                                                     failure_names(self.categories), strict=True)})
        if "monitor" in self.groups and self.watch is not None:
            out.update(zip(MONITOR_NAMES, watch_metrics(self.watch).values(), strict=True))
        return out


@dataclass(frozen=True)
class TokenAdvantages:
    """Per-token advantages and what a trainer should log about them."""

    tokens: torch.Tensor  # (B, L) float32 on the mask's device; 0 outside assistant turns
    stats: dict[str, float]  # every name of ``Shaper.advantage_metric_names``
    per_trajectory: np.ndarray  # (B,) A^E (PlanPO) or A (GRPO)
    per_turn: np.ndarray  # (sum T,) what each turn's tokens received
    length_term: np.ndarray  # (sum T,) A^S per turn (0 for GRPO)
    turns: np.ndarray  # (B,) assistant turns per row
    turn_lengths: np.ndarray  # (sum T,) generated tokens per turn
    success: np.ndarray  # (B,) the success flags used
