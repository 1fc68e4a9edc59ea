"""``Scorer``: model text to a finished ``SampleScore`` at a step, built once per worker from a ``ShapingConfig``
(or from a store, standalone). Configuration (mode, schedule, plugins) is checked when it is built and raises;
model output never raises in ``score``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from planshape.validators.travelplanner.checks.modes import Mode, get_mode
from planshape.validators.travelplanner.checks.verdicts import PlanResult, check_plan
from planshape.validators.travelplanner.plan.answer import CLOSE, OPEN
from planshape.validators.travelplanner.plan.formats import MAX_ANSWER_CHARS, gate
from planshape.validators.travelplanner.query import Query
from planshape.validators.travelplanner.store.sandbox import SandboxStore

from .. import plugins
from ..components import COMPONENTS, ERROR, NO_ANSWER, SCHEMA, failure_categories, first_failure
from ..config import ConfigError, Success
from ..observe.metric_names import GROUPS, MetricNames
from ..observe.monitor import NOT_CHECKED, Monitor, Watch
from ..observe.verdict_log import verdict_code
from ..schedules import Stage, schedule_from_config
from ..scores import SampleScore
from .carried import Carry
from .labels import QueryLike, read_query
from .success import SuccessRule
from .weighing import Weighing

if TYPE_CHECKING:
    from ..config import ShapingConfig


@dataclass(frozen=True)
class Reading:
    """What a model's text answers with: the upstream plan (``reason``: the gate's word on it), or None with the
    failure category and its reason."""

    plan: list[dict[str, Any]] | None
    failure: str
    reason: str


class Scorer:
    """Scores model outputs against one database with one mode, schedule and success rule (one per worker).

    >>> import json
    >>> from planshape.validators.travelplanner import open_store, sample
    >>> scorer = Scorer(open_store(str(sample.sample_database())), schedule="curriculum-8b")
    >>> query = json.loads(sample.sample_queries().read_text().splitlines()[0])
    >>> scored = scorer.score("I could not finish the plan.", query, step=150)
    >>> scored.reward, scored.failure, scored.stage
    (0.0, 'no_answer', 'stage2')
    """

    def __init__(self, store: SandboxStore | None, mode: str | Mode = "strict", schedule: Any = "stage1",
                 component_weights: Mapping[str, float] | None = None, max_answer_chars: int = MAX_ANSWER_CHARS,
                 monitor: bool = False, success: Success | None = None, metrics: tuple[str, ...] = GROUPS,
                 open_store: Callable[[], SandboxStore] | None = None):
        """``store``: the sandbox, or None with ``open_store`` to open it on first use (neither: no database,
        nothing to score, an estimator-only config); ``metrics``: the metric groups logged
        (``ShapingConfig.metrics``)."""
        self._store = store
        self._open_store = open_store
        self.mode: Mode = get_mode(mode)
        self.weighing = Weighing(schedule_from_config(schedule, plugins.schedules()), dict(component_weights or {}))
        self.success = SuccessRule(self.weighing, success or Success())
        self.max_answer_chars = max_answer_chars
        self.commonsense, self.hard = plugins.checks()
        self.categories = failure_categories([c.key for c in self.commonsense], [c.key for c in self.hard])
        self.names = MetricNames(self.categories, monitor, metrics)
        self.carry = Carry(self.weighing, self.success, self.names)
        self.no_answer_reason = _no_answer_reason()
        self.monitor = Monitor(self.mode, self.commonsense, self.hard) if monitor else None

    @classmethod
    def from_config(cls, config: ShapingConfig) -> Scorer:
        """The scorer of a validated config; its store opens on first use (a config without a database scores
        nothing: ``store`` raises ``ConfigError``)."""
        path = config.database_path
        opener = None if path is None else _Opener(str(path), config.backend)
        return cls(None, get_mode(config.mode, config.conventions), config.schedule_object(),
                   config.component_weights, config.answer.max_chars, config.monitor, config.success, config.metrics,
                   opener)

    @property
    def store(self) -> SandboxStore:
        """The sandbox (opened here on first use when the scorer was given a way to open it)."""
        if self._store is None:
            if self._open_store is None:
                raise ConfigError("this planshape config has no database (estimator-only: advantages from the "
                                  "trainer's own reward); scoring TravelPlanner plans or their tools needs database:")
            self._store = self._open_store()
        return self._store

    @property
    def schedule(self) -> Any:
        return self.weighing.schedule

    # --- the parts of a score, each usable alone (``explain``, ``planshape rollout``) --------------------------

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
        """The reward at ``step`` of a checked plan's components (``Weighing.weigh``)."""
        return self.weighing.weigh(components, step)

    # --- the score ---------------------------------------------------------------------------------------------

    def score(self, text: Any, query: QueryLike, step: int = 0) -> SampleScore:
        """One model output's finished score at ``step`` (optimizer steps completed). ``query``: a TravelPlanner
        record, its JSON text or a ``Query`` (a malformed one is configuration: ``ValueError``)."""
        query = read_query(query)
        try:
            reading = self.read(text)
            if reading.plan is None:
                return self._zero(step, reading.failure, reading.reason, query)
            result, watch = self.check(reading.plan, query)
            components = {"schema": 1.0, **plugins.reward_components(result, query)}
        except Exception as exc:  # noqa: BLE001 - a plugin or checker failing on model output must not crash training
            return self._zero(step, ERROR, f"{type(exc).__name__}: {exc}"[:300], query)
        failure, reason = first_failure(result)
        stage = self.weighing.stage(step)
        reward = float(self.weighing.weigh(components, step, stage))
        return self._finished(reward, components, step, failure, reason, query, verdict_code(result), watch, stage)

    def unscored(self, step: int, failure: str = ERROR, reason: str = "", query: QueryLike | None = None
                 ) -> SampleScore:
        """The zero score of a sample that could not be scored (``error``, ``timeout``, ``crash``, or ``no_answer``
        for an episode cut short): reward 0, counted under exactly one failure category. A ``query`` that cannot
        be read is left out (it may be what could not be scored)."""
        if failure not in self.categories:
            raise ValueError(f"unknown failure category {failure!r}; known: {list(self.categories)}")
        parsed = None
        if query is not None:
            try:
                parsed = read_query(query)
            except (ValueError, TypeError):
                pass
        return self._zero(step, failure, reason, parsed)

    def reweigh(self, scored: SampleScore, step: int) -> SampleScore:
        """A score checked at one step, weighed at another (its components are the step's verdicts)."""
        reward = float(self.weighing.weigh(scored.components, step))
        return replace(scored, reward=reward, success=self.success.one(reward, scored.components.get("pass") == 1.0),
                       step=step, stage=self.weighing.stage(step).name)

    def _zero(self, step: int, failure: str, reason: str, query: Query | None) -> SampleScore:
        return self._finished(0.0, dict.fromkeys(COMPONENTS, 0.0), step, failure, reason, query,
                              verdict_code(None), NOT_CHECKED)

    def _finished(self, reward: float, components: dict[str, float], step: int, failure: str, reason: str,
                  query: Query | None, verdicts: str, watch: Watch | None, stage: Stage | None = None) -> SampleScore:
        """THE one place a ``SampleScore`` is made: success by the rule, the monitor's view where it is on."""
        return SampleScore(reward, self.success.one(reward, components.get("pass") == 1.0), failure, reason,
                           (stage or self.weighing.stage(step)).name, step, components, self.categories, verdicts,
                           (watch or NOT_CHECKED) if self.monitor is not None else None,
                           level=(query.level or "") if query is not None else "",
                           days=query.days if query is not None else 0, groups=self.names.logged)


@dataclass(frozen=True)
class _Opener:
    """Opens a config's store in the process that first needs it (picklable: a pool worker opens its own)."""

    path: str
    backend: str

    def __call__(self) -> SandboxStore:
        from planshape.validators.travelplanner.store.sqlite import open_store

        return open_store(self.path, self.backend)


def _no_answer_reason() -> str:
    """Say which extractor found nothing: the built-in's tags, or the plugins that replaced it."""
    names = [impl.plugin_name for impl in plugins.plugin_manager().hook.planshape_extract_answer.get_hookimpls()]
    if names == [plugins.BUILTIN]:
        return f"no {OPEN}...{CLOSE} block in the output"
    return f"no answer found by the answer extractor(s) {names}"
