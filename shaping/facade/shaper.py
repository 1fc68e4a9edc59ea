"""``Shaper``: one validated configuration bound to its sandbox, scorer and estimator, doing the facade's two
jobs: score model outputs at a step, and turn a batch's scores into per-token advantages. Its other members live
one concern per module: the success rule (``success``), weighing at another step (``carried``), metric names
(``metrics``), the agent side (``agent``), describe/explain (``describe``), per-process resources
(``resources``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from planshape.validators.travelplanner.query import Query
from planshape.validators.travelplanner.store.sqlite import open_store

from .. import plugins
from ..budget import Failed, run_with_budget, score_all
from ..components import COMPONENTS, ERROR, failure_categories
from ..config import ConfigError, ShapingConfig, as_mapping, takes_alpha
from ..observe.monitor import NOT_CHECKED
from ..observe.verdict_log import verdict_code
from ..reward import RewardResult, Scorer
from ..scores import SampleScore, TokenAdvantages
from . import queries, steps, turns
from .agent import AgentSide
from .carried import Reweighing
from .describe import Description
from .metrics import MetricNames
from .queries import QueryLike, as_query, parse_query
from .resources import ProcessResources
from .steps import as_step
from .success import SuccessRule

if TYPE_CHECKING:
    import torch

    from ..advantages import Advantages, Rollouts


class Shaper(Reweighing, SuccessRule, MetricNames, AgentSide, Description, ProcessResources):
    """One validated configuration, bound to its store, scorer and estimator (build one per process).

    >>> shaper = Shaper.from_mapping({"database": "sample", "schedule": "curriculum-8b", "total_steps": 500})
    >>> [shaper.max_reward(step) for step in (0, 150, 450)]  # the curriculum's three stages
    [5.0, 3.0, 1.0]
    >>> query = shaper.read_queries("sample")[0]
    >>> scored = shaper.score("I could not finish the plan.", query, step=0)  # never raises on model output
    >>> scored.reward, scored.failure
    (0.0, 'no_answer')
    """

    def __init__(self, config: ShapingConfig):
        self.config = config
        self.schedule = config.schedule_object()
        self.alpha_decay = config.alpha_decay()
        self.estimator = plugins.estimators()[config.estimator]
        commonsense, hard = plugins.checks()
        self.categories = failure_categories([c.key for c in commonsense], [c.key for c in hard])
        self._name_metrics(self.categories, config.monitor, config.metrics)

    @classmethod
    def from_mapping(cls, source: Any, run_steps: int | None = None, run_source: str = "the trainer") -> Shaper:
        """From a dict, OmegaConf node, JSON/YAML text or file; raises ``ConfigError`` naming every bad field.
        ``run_steps``: the optimizer steps the trainer will run, when it knows (``ShapingConfig.from_mapping``)."""
        return cls(ShapingConfig.from_mapping(source, run_steps, run_source))

    @classmethod
    def shared(cls, source: Any, run_steps: int | None = None, run_source: str = "the trainer") -> Shaper:
        """``from_mapping``, built once per process for equal settings and plugins: every reward call, tool and
        estimator of a worker shares one ``Shaper`` (and so one sandbox, opened on first use). Text (a file path
        or inline YAML/JSON) is keyed as given, anything else by its canonical JSON."""
        text = isinstance(source, (str, Path))
        key = str(source) if text else json.dumps(as_mapping(source), sort_keys=True, default=str)
        return _shared(cls, text, key, run_steps, run_source, plugins.loaded())  # type: ignore[arg-type]  # a class hashes

    @property
    def estimator_only(self) -> bool:
        """No database: this facade estimates advantages from the trainer's reward and scores nothing."""
        return self.config.estimator_only

    @cached_property
    def scorer(self) -> Scorer:
        if self.config.database_path is None:
            raise ConfigError("this planshape config has no database (estimator-only: advantages from the "
                              "trainer's own reward); scoring TravelPlanner plans or their tools needs database:")
        return Scorer(open_store(str(self.config.database_path), self.config.backend), self.config.mode,
                      self.schedule, self.config.component_weights, self.config.answer.max_chars,
                      monitor=self.config.monitor)

    # --- job 1: rewards ------------------------------------------------------------------------------------

    def score(self, text: Any, query: QueryLike, step: int) -> SampleScore:
        """Score one model output (the final answer or the whole transcript: the last answer block counts).
        Past ``config.sample_budget_s`` the sample gets reward 0 and failure ``timeout``."""
        step, query = as_step(step), as_query(query)
        scored = self._finish(run_with_budget(self._score_now, (text, query, step), self.config.sample_budget_s),
                              step, query)
        self._log_scores(step, [scored])
        return scored

    def score_batch(self, texts: Sequence[Any], queries: Sequence[QueryLike], step: int) -> list[SampleScore]:
        """One ``SampleScore`` per output, in order, always: a sample past its budget (``timeout``) or whose
        scoring process died (``crash``, with ``config.workers`` > 0) gets reward 0; the others are unaffected."""
        if len(texts) != len(queries):
            raise ValueError(f"{len(texts)} outputs but {len(queries)} queries")
        step = as_step(step)
        items = [(t, as_query(q), step) for t, q in zip(texts, queries, strict=True)]
        if self.config.workers > 0:
            raw = self.pool.map(items)
        else:
            raw = score_all(self._score_now, items, self.config.sample_budget_s)
        scores = [self._finish(r, step, item[1]) for r, item in zip(raw, items, strict=True)]
        self._log_scores(step, scores)
        return scores

    def _score_now(self, text: Any, query: Query | Mapping[str, Any], step: int) -> SampleScore:
        query = parse_query(query)
        return replace(self._wrap(self.scorer.score(text, query, step)), level=query.level or "", days=query.days)

    def _finish(self, outcome: SampleScore | Failed, step: int, query: Query | Mapping[str, Any]) -> SampleScore:
        """A score, or the zero score of a sample that timed out or whose scoring process died."""
        return outcome if not isinstance(outcome, Failed) else self.unscored(step, outcome.kind, outcome.reason, query)

    def unscored(self, step: int, failure: str = ERROR, reason: str = "", query: QueryLike | None = None
                 ) -> SampleScore:
        """The zero score of a sample that could not be scored (``error``, ``timeout``, ``crash``, or
        ``no_answer`` for an episode cut short): reward 0, counted under exactly one failure category."""
        if failure not in self.categories:
            raise ValueError(f"unknown failure category {failure!r}; known: {list(self.categories)}")
        level, days = "", 0
        if query is not None:
            try:
                parsed = parse_query(as_query(query))
                level, days = parsed.level or "", parsed.days
            except (ValueError, TypeError):  # the query itself may be what could not be read
                pass
        step = as_step(step)
        return SampleScore(0.0, False, failure, reason, self.schedule.stage(step).name, step,
                           dict.fromkeys(COMPONENTS, 0.0), self.categories,
                           watch=NOT_CHECKED if self.config.monitor else None, level=level, days=days,
                           groups=self.config.metrics)

    def _wrap(self, scored: RewardResult) -> SampleScore:
        success = self._success(scored.reward, scored.components, scored.step)
        watch = (scored.watch or NOT_CHECKED) if self.config.monitor else None
        return SampleScore(scored.reward, success, scored.failure, scored.reason, scored.stage, scored.step,
                           scored.components, self.categories, verdict_code(scored.result), watch,
                           groups=self.config.metrics)

    # --- job 2: advantages -----------------------------------------------------------------------------------

    def alpha(self, step: int) -> float:
        """PlanPO's α(k) at ``step`` (0 for an estimator without α)."""
        return self.alpha_decay(as_step(step)) if takes_alpha(self.estimator) else 0.0

    def estimator_options(self, step: int) -> dict[str, Any]:
        """The estimator's keyword arguments at ``step``: the config's options, and α(step) when it takes α."""
        options = dict(self.config.estimator_options)
        if takes_alpha(self.estimator):
            options["alpha"] = self.alpha(step)
        return options

    def estimate(self, rollouts: Rollouts, step: int) -> Advantages:
        """The configured estimator on per-turn rollouts at ``step`` (``planshape score``'s path)."""
        return self.estimator(rollouts, **self.estimator_options(as_step(step)))

    def advantages(self, scores: Any, mask: torch.Tensor, index: Sequence[Any] | np.ndarray, step: int,
                   success: Sequence[bool] | np.ndarray | None = None,
                   trajectory: Sequence[Any] | np.ndarray | None = None,
                   turn_order: Sequence[int] | np.ndarray | None = None,
                   anchors: Sequence[Sequence[Any]] | None = None) -> TokenAdvantages:
        """Per-token advantages of a batch: ``scores`` (B,), ``mask`` (B, L) assistant tokens, ``index`` (B,)
        group ids (any hashable; groups need not be contiguous), ``success`` (B,) or read from the scores.

        ``trajectory`` (B,): the row-per-turn layout, rows of one trajectory sharing an id (``advantages.layout``:
        the trajectory's turns are its rows' turns in ``turn_order``, default batch order; its outcome is its
        final row's). Without it, each row is one whole trajectory. Statistics count each trajectory once.
        ``anchors`` (B,): per row, the anchor state id of each of its assistant turns (GiGPO's step groups;
        ``uses_anchors``, ``tool_call_anchors``)."""
        from ..advantages.inputs import success_flags
        from ..advantages.tokens import batch_advantages  # torch only when asked for

        step = as_step(step)
        reward = np.asarray(scores.detach().double().cpu() if hasattr(scores, "detach") else scores,
                            dtype=np.float64).reshape(-1)
        flags = self.success_from_rewards(reward, step) if success is None else success_flags(success, len(reward))
        batch = batch_advantages(reward, mask, index, flags, self.estimator, trajectory, turn_order, anchors=anchors,
                                 **self.estimator_options(step))
        ro, result = batch.rollouts, batch.result
        log = self._verdict_log()
        if log is not None:  # one record per trajectory, in either layout
            log.advantages(step, batch.group_ids, ro.reward, ro.success, ro.turns, ro.lengths, result.trajectory,
                           result.turn)
        stats = self.advantage_stats(result, ro.turns, ro.lengths, ro.success, ro.group)
        return TokenAdvantages(batch.tokens, stats, batch.per_row, batch.per_turn, batch.turn_term, batch.turns,
                               batch.lengths, flags)

    # --- the data side, as the adapters call it (``queries``, ``steps``) ---------------------------------------

    read_queries = staticmethod(queries.read_queries)
    read_query = staticmethod(queries.read_query)
    gold_answer = staticmethod(queries.gold_answer)
    query_json = staticmethod(queries.query_json)
    split_queries = staticmethod(queries.split_queries)
    steps_completed = staticmethod(steps.steps_completed)
    trainer_step = staticmethod(steps.trainer_step)

    @property
    def uses_anchors(self) -> bool:
        """Whether the estimator groups turns by anchor state (GiGPO): the adapter then passes ``anchors``, by
        ``config.anchor_key``: the trainer's per-turn state ids, or ``tool_call_anchors`` of the turns' text."""
        return bool(getattr(self.estimator, "uses_anchors", False))

    tool_call_anchors = staticmethod(turns.tool_call_anchors)
    turn_texts = staticmethod(turns.turn_texts)


@lru_cache(maxsize=8)
def _shared(cls: type[Shaper], text: bool, key: str, run_steps: int | None, run_source: str,
            loaded: tuple[str, ...]) -> Shaper:
    return cls.from_mapping(key if text else json.loads(key), run_steps, run_source)
