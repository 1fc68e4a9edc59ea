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
from functools import lru_cache
from pathlib import Path
from typing import Any

from planshape.validators.travelplanner.evaluate import PlanResult, Status, check_plan
from planshape.validators.travelplanner.modes import get_mode
from planshape.validators.travelplanner.plan_format import MAX_ANSWER_CHARS, gate
from planshape.validators.travelplanner.query import Query
from planshape.validators.travelplanner.sandbox import SandboxStore

from .schedules import Schedule, schedule_from_config

# Metric names, identical in every trainer's log.
COMPONENTS = ("schema", "cs_micro", "hard_micro", "cs_macro", "hard_macro", "pass")


def plan_components(result: PlanResult, query: Query) -> dict[str, float]:
    """The four rates and ``pass`` of one checked plan (the schema component is the gate's)."""
    cs = [v for v in result.commonsense.values() if v.status is not Status.NA]
    cs_micro = sum(v.passed for v in cs) / len(cs) if cs else 0.0
    if result.hard is not None:
        hard = [v for v in result.hard.values() if v.status is not Status.NA]
        hard_micro = sum(v.passed for v in hard) / len(hard) if hard else 1.0
    else:
        hard_micro = 0.0
    cs_macro = float(result.delivered and cs_micro == 1.0)
    hard_macro = float(result.hard is not None and hard_micro == 1.0)
    return {"cs_micro": cs_micro, "hard_micro": hard_micro, "cs_macro": cs_macro, "hard_macro": hard_macro,
            "pass": cs_macro * hard_macro}


def first_failure(result: PlanResult) -> tuple[str, str]:
    """The failure category ("commonsense:<key>", "hard:<key>", "hard_not_run") and its reason."""
    for key, verdict in result.commonsense.items():
        if verdict.status is Status.FAIL:
            return f"commonsense:{key}", verdict.reason
    if result.hard is None:
        return "hard_not_run", result.note
    for key, verdict in result.hard.items():
        if verdict.status is Status.FAIL:
            return f"hard:{key}", verdict.reason
    return "", ""


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

    def metrics(self) -> dict[str, float]:
        """The numbers to log, under the same names in every trainer."""
        return {"reward": self.reward, **self.components}


class Scorer:
    """Scores model outputs against one database with one mode and one schedule (built once per worker)."""

    def __init__(self, store: SandboxStore, mode: str = "strict", schedule: Any = "stage1",
                 component_weights: Mapping[str, float] | None = None, max_answer_chars: int = MAX_ANSWER_CHARS):
        from . import plugins

        self.store = store
        self.mode = get_mode(mode).name
        self.schedule: Schedule = schedule_from_config(schedule, plugins.schedules())
        self.component_weights = dict(component_weights or {})
        self.max_answer_chars = max_answer_chars
        self.commonsense, self.hard = plugins.checks()

    def _zero(self, step: int, failure: str, reason: str) -> RewardResult:
        zeros = {k: 0.0 for k in COMPONENTS}
        return RewardResult(0.0, zeros, step, self.schedule.stage(step).name, failure, reason)

    def score(self, text: Any, query: Query | Mapping[str, Any], step: int = 0) -> RewardResult:
        """Reward for one model output. ``step``: optimizer steps completed so far (see ``schedules``)."""
        from . import plugins

        if not isinstance(query, Query):
            query = Query.from_record(query)  # configuration: a malformed query raises here
        try:
            answer = plugins.extract_answer(text if isinstance(text, str) else "")
            if answer is None:
                return self._zero(step, "no_answer", "no <answer>...</answer> block in the output")
            gated = gate(answer, self.max_answer_chars)
            if not gated.ok:
                return self._zero(step, "schema", gated.reason)
            result = check_plan(gated.plan, query, self.store, self.mode, self.commonsense, self.hard)
            components = {"schema": 1.0, **plugins.reward_components(result, query)}
        except Exception as exc:  # noqa: BLE001 - a plugin or checker failing on model output must not crash training
            return self._zero(step, "error", f"{type(exc).__name__}: {exc}"[:300])
        weights = {**self.component_weights, **self.schedule.weights(step)}
        reward = components["schema"] * sum(w * components.get(k, 0.0) for k, w in weights.items())
        failure, reason = first_failure(result)
        return RewardResult(reward, components, step, self.schedule.stage(step).name, failure, reason, result)

    def success(self, scored: RewardResult) -> bool:
        """PlanPO's default success predicate for TravelPlanner: the final pass."""
        return scored.components.get("pass", 0.0) == 1.0


def failure_counts(results: Iterable[RewardResult]) -> Counter:
    """How often each failure category occurred: the countable reasons for a trainer's log."""
    return Counter(r.failure or "pass" for r in results)


MEMORY_LIMIT = 50_000_000  # flights CSV bytes above which a directory is served from its SQLite store


@lru_cache(maxsize=8)
def open_store(database: str, backend: str = "auto") -> SandboxStore:
    """The sandbox, opened once per process: a built store file, or a database directory.

    A directory is loaded into memory (``backend="memory"``) or served from its automatically built and
    cached SQLite store (``"sqlite"``); ``"auto"`` picks SQLite when the flights table is large (full size).
    """
    from planshape.validators.travelplanner.database import load_database
    from planshape.validators.travelplanner.store import SqliteStore, cached_store, flights_size

    path = Path(database)
    if backend not in ("auto", "memory", "sqlite"):
        raise ValueError(f"unknown store backend {backend!r}; choose auto, memory or sqlite")
    if path.is_file():
        return SqliteStore(path)
    if backend == "memory" or (backend == "auto" and flights_size(path) < MEMORY_LIMIT):
        return load_database(path)
    return cached_store(path)


@lru_cache(maxsize=16)
def _scorer(database: str, mode: str, schedule: str) -> Scorer:
    return Scorer(open_store(database), mode, schedule)


def score(text: Any, query: Query | Mapping[str, Any], step: int = 0, *, database: str | Path,
          mode: str = "strict", schedule: str = "stage1") -> RewardResult:
    """One-call reward: the database, mode and named schedule are loaded once per process and reused."""
    return _scorer(str(database), mode, schedule).score(text, query, step)
