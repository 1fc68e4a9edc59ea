"""What will run, and why one output scored as it did: ``describe`` (every setting a user should see before a
launch) and ``explain`` (one output's verdicts, claims and compared rows, read and checked as the reward does)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from planshape.validators.travelplanner.checks.verdicts import as_days
from planshape.validators.travelplanner.evaluation.explain import Explanation, claims, timeline
from planshape.validators.travelplanner.plan.formats import gate

from .. import plugins
from ..reward import QueryLike, read_query

if TYPE_CHECKING:
    from ..config import ShapingConfig
    from ..reward import Scorer
    from .estimator import AdvantageEstimator


class Description:
    """``describe`` and ``explain`` over a config's scorer and estimator (``prompt_version``: the agent side's)."""

    def __init__(self, config: ShapingConfig, scorer: Scorer, estimator: AdvantageEstimator, prompt_version: str):
        self.config = config
        self.scorer = scorer
        self.estimator = estimator
        self.prompt_version = prompt_version

    def describe(self) -> dict[str, Any]:
        """Everything a user should see before launching a run (estimator-only: what the estimator uses)."""
        estimator = self.estimator.describe()
        if self.config.estimator_only:
            return {"database": None, "estimator_only": True, **estimator, "log_dir": self.config.log_dir,
                    "plugins": plugins.versions()}
        stages = self.scorer.schedule.stages
        return {
            "database": str(self.config.database_path), "backend": self.config.backend, "mode": self.config.mode,
            "schedule": self.scorer.schedule.name,
            "stages": [{"name": s.name, "from_step": s.start, "until_step": nxt.start if nxt else None,
                        "weights": dict(s.weights)} for s, nxt in zip(stages, [*stages[1:], None], strict=True)],
            **estimator,
            "prompt_version": self.prompt_version,
            "monitor": self.config.monitor, "metrics": list(self.config.metrics), "log_dir": self.config.log_dir,
            "sample_budget_s": self.config.sample_budget_s, "workers": self.config.workers,
            "plugins": plugins.versions(),
        }

    def explain(self, answer: Any, query: QueryLike) -> Explanation:
        """Every check's verdict on one output, with each claim and the sandbox rows it was compared with.

        Text is read and checked exactly as the reward reads and checks it (the plugins' answer extractor, the
        gate, the plugins' checks in the config's mode). A plan given as parsed JSON is checked as given: upstream
        day dicts without the gate, structured days through it."""
        parsed = read_query(query)
        scorer = self.scorer
        days = None if isinstance(answer, str) else as_days(answer)
        plan: list[Any] | None
        if days and all(isinstance(d, Mapping) and "current_city" in d for d in days):
            plan, reason = days, "an upstream plan (no schema gate)"
        elif days is not None:
            gated = gate(answer, self.config.answer.max_chars)
            plan, reason = gated.plan, gated.reason
        else:
            reading = scorer.read(answer)
            plan, reason = reading.plan, reading.reason
        if plan is None:
            return Explanation(scorer.mode.name, reason)
        result, _ = scorer.check(plan, parsed)
        return Explanation(scorer.mode.name, reason, result, claims(plan, parsed, scorer.store, scorer.mode),
                           timeline(plan, parsed, scorer.store, scorer.mode))
