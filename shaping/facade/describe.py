"""What will run, and why one output scored as it did: ``describe`` (every setting a user should see before a
launch) and ``explain`` (one output's verdicts, claims and compared rows, read and checked as the reward does)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from planshape.validators.travelplanner.checks.verdicts import as_days
from planshape.validators.travelplanner.evaluation.explain import Explanation, claims, timeline
from planshape.validators.travelplanner.plan.formats import gate

from .. import plugins
from ..config import takes_alpha
from .queries import QueryLike, read_query

if TYPE_CHECKING:
    from ..advantages import Estimator
    from ..config import ShapingConfig
    from ..reward import Scorer
    from ..schedules import LinearDecay, Schedule


class Description:
    """``describe`` and ``explain`` of a ``Shaper``."""

    config: ShapingConfig

    if TYPE_CHECKING:  # the Shaper's cached property; declared read-only so that it may be one
        @property
        def scorer(self) -> Scorer: ...
    schedule: Schedule
    alpha_decay: LinearDecay
    estimator: Estimator
    prompt_version: str

    def describe(self) -> dict[str, Any]:
        """Everything a user should see before launching a run (estimator-only: what the estimator uses)."""
        decay = self.alpha_decay
        estimator = {
            "estimator": self.config.estimator, "estimator_options": dict(self.config.estimator_options),
            "alpha": ({"init": decay.init, "final": decay.final, "steps": self.config.alpha_horizon}
                      if takes_alpha(self.estimator) else None),
            "success": self.config.success.model_dump(exclude_none=True),
            "anchor": ({"by": self.config.anchor_key, "field": self.config.anchor.field,
                        **({"similarity": self.config.anchor.similarity} if self.config.anchor.similarity else {})}
                       if getattr(self.estimator, "uses_anchors", False) else None),
            "per_turn_rewards": ({"read": True, **self.config.step_rewards.model_dump(exclude_none=True)}
                                 if self.config.reads_step_rewards else
                                 "refused (the estimator reads the outcome only)"),
            "step_convention": "optimizer steps completed, from 0",
        }
        if self.config.estimator_only:
            return {"database": None, "estimator_only": True, **estimator, "log_dir": self.config.log_dir,
                    "plugins": plugins.versions()}
        stages = self.schedule.stages
        return {
            "database": str(self.config.database_path), "backend": self.config.backend, "mode": self.config.mode,
            "schedule": self.schedule.name,
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
        mode = self.scorer.mode
        days = None if isinstance(answer, str) else as_days(answer)
        plan: list[Any] | None
        if days and all(isinstance(d, Mapping) and "current_city" in d for d in days):
            plan, reason = days, "an upstream plan (no schema gate)"
        elif days is not None:
            gated = gate(answer, self.config.answer.max_chars)
            plan, reason = gated.plan, gated.reason
        else:
            reading = self.scorer.read(answer)
            plan, reason = reading.plan, reading.reason
        if plan is None:
            return Explanation(mode.name, reason)
        result, _ = self.scorer.check(plan, parsed)
        store = self.scorer.store
        return Explanation(mode.name, reason, result, claims(plan, parsed, store, mode),
                           timeline(plan, parsed, store, mode))
