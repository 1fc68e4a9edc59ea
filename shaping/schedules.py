"""Reward-weight schedules over training steps (Planner-R1 stages and curricula, Agent-STAR's reward settings) and
the α decay of PlanPO.

Step convention: ``step`` is the number of optimizer steps completed before the batch being scored, so the
first batch is step 0. Adapters convert: VERL ``global_steps - 1``, TRL ``trainer_state.global_step``,
OpenRLHF ``global_step``. Stage boundaries are half-open: curriculum-8b is stage 1 on [0, 100),
stage 2 on [100, 400), stage 3 from 400 on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# The five weighted Planner-R1 components, in the paper's λ1..λ5 order. The schema gate multiplies them all.
WEIGHTED = ("cs_micro", "hard_micro", "cs_macro", "hard_macro", "pass")
STAGE_WEIGHTS = {
    # Planner-R1 (Zhu et al., arXiv 2509.25779, §3 and Table 1)
    "stage1": (1.0, 1.0, 1.0, 1.0, 1.0),  # dense: partial credit
    "stage2": (0.0, 0.0, 1.0, 1.0, 1.0),  # category level
    "stage3": (0.0, 0.0, 0.0, 0.0, 1.0),  # sparse: final pass only
    # Agent-STAR (Wu et al., arXiv 2603.21972) over its released evaluator's five per-plan scores (commonsense micro
    # and macro, hard micro and macro, success; WxxShirley/Agent-STAR Inference/eval.py); docs/schedules.md says
    # what is cited and what is read (the paper's reward section could not be read here)
    "agent-star-success": (0.0, 0.0, 0.0, 0.0, 1.0),  # sparse: success only
    "agent-star-macro": (0.0, 0.0, 1.0, 1.0, 0.0),  # semi-sparse: the two macro scores
    "agent-star-sum": (1.0, 1.0, 1.0, 1.0, 1.0),  # dense: the SUM of the five scores
}


class ScheduleError(ValueError):
    """A schedule that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Stage:
    start: int
    name: str
    weights: Mapping[str, float]


@dataclass(frozen=True)
class Schedule:
    """Piecewise-constant reward weights: each stage holds from its ``start`` step until the next one."""

    name: str
    stages: tuple[Stage, ...]

    def __post_init__(self) -> None:
        if not self.stages:
            raise ScheduleError(f"schedule {self.name!r}: needs at least one stage")
        if self.stages[0].start != 0:
            raise ScheduleError(f"schedule {self.name!r}: the first stage must start at step 0")
        starts = [s.start for s in self.stages]
        if any(b <= a for a, b in zip(starts, starts[1:], strict=False)):
            raise ScheduleError(f"schedule {self.name!r}: stage starts must strictly increase, got {starts}")
        for stage in self.stages:
            for key, value in stage.weights.items():
                if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                    raise ScheduleError(f"schedule {self.name!r}, stage {stage.name!r}: weight {key}={value!r} "
                                        "must be a finite number >= 0")
            if not any(stage.weights.values()):
                raise ScheduleError(f"schedule {self.name!r}, stage {stage.name!r}: all weights are 0")

    def stage(self, step: int) -> Stage:
        if step < 0:
            raise ValueError(f"step must be >= 0, got {step}")
        current = self.stages[0]
        for stage in self.stages:
            if stage.start <= step:
                current = stage
        return current

    def weights(self, step: int) -> Mapping[str, float]:
        return self.stage(step).weights


def _weights(value: Any, where: str) -> dict[str, float]:
    if isinstance(value, str):
        if value not in STAGE_WEIGHTS:
            raise ScheduleError(f"{where}: unknown stage {value!r}; choose one of {sorted(STAGE_WEIGHTS)}")
        return dict(zip(WEIGHTED, STAGE_WEIGHTS[value], strict=True))
    if isinstance(value, Mapping):
        unknown = set(value) - set(WEIGHTED)
        if unknown:
            raise ScheduleError(f"{where}: unknown component(s) {sorted(unknown)}; known: {list(WEIGHTED)}")
        return {k: value.get(k, 0.0) for k in WEIGHTED}
    if isinstance(value, Sequence) and len(value) == len(WEIGHTED):
        return dict(zip(WEIGHTED, value, strict=True))
    raise ScheduleError(f"{where}: weights must be a stage name, 5 numbers (λ1..λ5) or a mapping, got {value!r}")


def constant(name: str) -> Schedule:
    return Schedule(name, (Stage(0, name, _weights(name, name)),))


def curriculum(name: str, boundaries: Sequence[int]) -> Schedule:
    """Stage 1 -> 2 -> 3, switching at the given steps."""
    starts = (0, *boundaries)
    return Schedule(name, tuple(Stage(s, f"stage{i + 1}", _weights(f"stage{i + 1}", name))
                                for i, s in enumerate(starts)))


PRESETS: dict[str, Schedule] = {
    "stage1": constant("stage1"),
    "stage2": constant("stage2"),
    "stage3": constant("stage3"),
    "curriculum-8b": curriculum("curriculum-8b", (100, 400)),  # 100 / 300 / 100 steps
    "curriculum-32b": curriculum("curriculum-32b", (50, 400)),  # 50 / 350 / 100 steps
    "agent-star-success": constant("agent-star-success"),
    "agent-star-macro": constant("agent-star-macro"),
    "agent-star-sum": constant("agent-star-sum"),
}


def schedule_from_config(config: Any, presets: Mapping[str, Schedule] = PRESETS) -> Schedule:
    """A preset name, or ``{"name": ..., "stages": [{"start": 0, "weights": "stage1" | [..] | {..}}, ...]}``."""
    if isinstance(config, Schedule):
        return config
    if isinstance(config, str):
        if config not in presets:
            raise ScheduleError(f"unknown schedule {config!r}; choose one of {sorted(presets)} or give stages")
        return presets[config]
    if isinstance(config, Mapping) and "stages" in config:
        name = str(config.get("name", "custom"))
        stages = []
        for i, raw in enumerate(config["stages"]):
            if not isinstance(raw, Mapping) or "start" not in raw or "weights" not in raw:
                raise ScheduleError(f"schedule {name!r}: stage {i} needs 'start' and 'weights', got {raw!r}")
            stages.append(Stage(int(raw["start"]), str(raw.get("name", f"stage{i + 1}")),
                                _weights(raw["weights"], f"schedule {name!r} stage {i}")))
        return Schedule(name, tuple(stages))
    raise ScheduleError(f"a schedule is a preset name or a mapping with 'stages', got {config!r}")


@dataclass(frozen=True)
class LinearDecay:
    """α(k) = init − (init − final)·min(k / steps, 1): PlanPO Eq. (8), decaying from ``init`` to ``final``."""

    init: float
    final: float
    steps: int

    def __post_init__(self) -> None:
        if not (math.isfinite(self.init) and math.isfinite(self.final)):
            raise ScheduleError(f"LinearDecay: init and final must be finite, got {self.init}, {self.final}")
        if not 0 <= self.final <= self.init:
            raise ScheduleError(f"LinearDecay: need 0 <= final <= init, got init={self.init}, final={self.final}")
        if self.steps <= 0:
            raise ScheduleError(f"LinearDecay: steps (the decay horizon) must be > 0, got {self.steps}")

    def __call__(self, step: int) -> float:
        return self.init - (self.init - self.final) * min(max(step, 0) / self.steps, 1.0)
