"""The Planner-R1 reward: schema gate, checks, components, weights from a schedule.

    r = schema · (λ1·cs_micro + λ2·hard_micro + λ3·cs_macro + λ4·hard_macro + λ5·pass)

Per plan: ``cs_micro`` = passed / applicable commonsense checks; ``hard_micro`` = passed / applicable hard
checks, where hard checks that were not run (Complete Information or Within Sandbox failed) count as
failed, as in the official metrics; the macros are 1 when their micro is 1; ``pass`` = both macros.
Model output never raises out of ``Scorer.score``: it gets 0 and a ``failure`` category with a reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from planshape.validators.travelplanner.checks.modes import Mode, get_mode
from planshape.validators.travelplanner.checks.verdicts import PlanResult, check_plan
from planshape.validators.travelplanner.plan.answer import CLOSE, OPEN
from planshape.validators.travelplanner.plan.formats import MAX_ANSWER_CHARS, gate
from planshape.validators.travelplanner.query import Query
from planshape.validators.travelplanner.store.sandbox import SandboxStore

from . import plugins
from .components import COMPONENTS, ERROR, NO_ANSWER, PASSED, SCHEMA, first_failure
from .observe.monitor import Monitor, Watch
from .schedules import Schedule, schedule_from_config


@dataclass(frozen=True)
class RewardResult:
    """One scored trajectory. ``failure`` is "" for a passing plan, otherwise a countable category."""

    reward: float
    components: dict[str, float]
    step: int
    stage: str
    failure: str = ""
    reason: str = ""
    result: PlanResult | None = field(default=None, repr=False)
    watch: Watch | None = field(default=None, repr=False)  # the reward-hacking monitor's view (when it runs)


@dataclass(frozen=True)
class Reading:
    """What a model's text answers with: the upstream plan (``reason``: the gate's word on it), or None with the
    failure category and its reason."""

    plan: list[dict[str, Any]] | None
    failure: str
    reason: str


class Scorer:
    """Scores model outputs against one database with one mode and one schedule (built once per worker).

    Configuration (mode, schedule, plugins) is checked here and raises; model output never raises in ``score``.
    """

    def __init__(self, store: SandboxStore, mode: str | Mode = "strict", schedule: Any = "stage1",
                 component_weights: Mapping[str, float] | None = None, max_answer_chars: int = MAX_ANSWER_CHARS,
                 monitor: bool = False):
        self.store = store
        self.mode: Mode = get_mode(mode)
        self.schedule: Schedule = schedule_from_config(schedule, plugins.schedules())
        self.component_weights = dict(component_weights or {})
        self.max_answer_chars = max_answer_chars
        self.commonsense, self.hard = plugins.checks()
        self.no_answer_reason = _no_answer_reason()
        self.monitor = Monitor(self.mode, self.commonsense, self.hard) if monitor else None

    def _zero(self, step: int, failure: str, reason: str) -> RewardResult:
        zeros = {k: 0.0 for k in COMPONENTS}
        return RewardResult(0.0, zeros, step, self.schedule.stage(step).name, failure, reason)

    def read(self, text: Any) -> Reading:
        """Model text -> the upstream plan it answers with, through the plugins' answer extractor and the schema
        gate: THE reading of every path (reward, explain, evaluate, rollout). Raises only if a plugin does."""
        answer = plugins.extract_answer(text if isinstance(text, str) else "")
        if answer is None:
            return Reading(None, NO_ANSWER, self.no_answer_reason)
        gated = gate(answer, self.max_answer_chars)
        return Reading(gated.plan, "", gated.reason) if gated.ok else Reading(None, SCHEMA, gated.reason)

    def check(self, plan: list[dict[str, Any]], query: Query) -> tuple[PlanResult, Watch | None]:
        """A read plan's verdicts under the plugins' checks in this mode (and the monitor's view, when on)."""
        if self.monitor is None:
            return check_plan(plan, query, self.store, self.mode, self.commonsense, self.hard), None
        return self.monitor.check(plan, query, self.store)

    def weigh(self, components: Mapping[str, Any], step: int) -> Any:
        """The reward of a checked plan's components at ``step`` (``weighted_sum``)."""
        return weighted_sum(components, {**self.component_weights, **self.schedule.weights(step)})

    def score(self, text: Any, query: Query | Mapping[str, Any], step: int = 0) -> RewardResult:
        """Reward for one model output. ``step``: optimizer steps completed so far (see ``schedules``)."""
        if not isinstance(query, Query):
            query = Query.from_record(query)  # configuration: a malformed query raises here
        try:
            reading = self.read(text)
            if reading.plan is None:
                return self._zero(step, reading.failure, reading.reason)
            result, watch = self.check(reading.plan, query)
            components = {"schema": 1.0, **plugins.reward_components(result, query)}
        except Exception as exc:  # noqa: BLE001 - a plugin or checker failing on model output must not crash training
            return self._zero(step, ERROR, f"{type(exc).__name__}: {exc}"[:300])
        failure, reason = first_failure(result)
        return RewardResult(self.weigh(components, step), components, step, self.schedule.stage(step).name, failure,
                            reason, result, watch)


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


def _no_answer_reason() -> str:
    """Say which extractor found nothing: the built-in's tags, or the plugins that replaced it."""
    names = [impl.plugin_name for impl in plugins.plugin_manager().hook.planshape_extract_answer.get_hookimpls()]
    if names == [plugins.BUILTIN]:
        return f"no {OPEN}...{CLOSE} block in the output"
    return f"no answer found by the answer extractor(s) {names}"


class _Failed(Protocol):
    @property
    def failure(self) -> str: ...


def failure_counts(results: Iterable[_Failed]) -> Counter:
    """How often each failure category occurred: the countable reasons for a trainer's log."""
    return Counter(r.failure or PASSED for r in results)
