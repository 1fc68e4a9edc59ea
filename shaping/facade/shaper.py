"""``Shaper``: one validated configuration bound to the parts that do the facade's two jobs (score model outputs at
a step; turn a batch's scores into per-token advantages), each part built alone and held here: the reward
(``reward.Scorer``), the estimator (``estimator``), the agent side (``agent``), the process's resources
(``resources``) and the description (``describe``). ``Shaper`` delegates the names adapters and users call, and no
more; the data side is the facade's functions (``queries``, ``steps``, ``turns``)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import plugins
from ..budget import Failed, run_with_budget, score_all
from ..components import ERROR
from ..config import STEP_REWARDS_FIELD, ConfigError, ShapingConfig, as_mapping
from ..reward import Carried, QueryLike, Scorer, read_query
from ..scores import SampleScore, TokenAdvantages
from . import queries, steps, turns
from .agent import AgentSide
from .describe import Description
from .estimator import AdvantageEstimator
from .resources import ProcessResources
from .steps import as_step

if TYPE_CHECKING:
    import torch
    from planshape.validators.travelplanner.agent.tools import ToolBox
    from planshape.validators.travelplanner.evaluation.explain import Explanation

    from ..advantages import Advantages, Rollouts
    from ..scoring_pool import ScoringPool

class Moved:
    """A former staticmethod of ``Shaper``, now a function of the facade: ``Shaper.<name>`` still works for a
    release, with a ``DeprecationWarning`` naming the import (CHANGELOG.md). Not part of the face."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Callable[..., Any]:
        warnings.warn(f"Shaper.{self.name} is now a function of the facade: from planshape.shaping.facade import "
                      f"{self.name}", DeprecationWarning, stacklevel=2)
        return self.fn


class Shaper:
    """One validated configuration, bound to its scorer, estimator and tools (build one per process).

    >>> shaper = Shaper.from_mapping({"database": "sample", "schedule": "curriculum-8b", "total_steps": 500})
    >>> [shaper.max_reward(step) for step in (0, 150, 450)]  # the curriculum's three stages
    [5.0, 3.0, 1.0]
    >>> from planshape.shaping.facade import read_queries
    >>> scored = shaper.score("I could not finish the plan.", read_queries("sample")[0], step=0)  # never raises
    >>> scored.reward, scored.failure
    (0.0, 'no_answer')
    """

    def __init__(self, config: ShapingConfig):
        self.config = config
        self.scorer = Scorer.from_config(config)
        self._agent = AgentSide(lambda: self.scorer.store, config.tools.max_chars)
        self._resources = ProcessResources(config, self.describe)
        self._estimator = AdvantageEstimator(config, self.scorer.success, self.scorer.names,
                                             self._resources.verdict_log)
        self._description = Description(config, self.scorer, self._estimator, self._agent.prompt_version)

    if not TYPE_CHECKING:  # deprecated spellings of the facade's functions (type checkers see the functions only)
        read_queries, read_query = Moved(queries.read_queries), Moved(read_query)
        gold_answer, query_json = Moved(queries.gold_answer), Moved(queries.query_json)
        split_queries = Moved(queries.split_queries)
        trainer_step, steps_completed = Moved(steps.trainer_step), Moved(steps.steps_completed)
        tool_call_anchors, turn_texts = Moved(turns.tool_call_anchors), Moved(turns.turn_texts)

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

    @property
    def staged(self) -> bool:
        """Whether the reward's weights change with the step: a trainer must then pass the real step."""
        return self.scorer.weighing.staged

    # --- job 1: rewards (``reward.Scorer``, in this process's budget, pool and verdict log) -------------------

    def score(self, text: Any, query: QueryLike, step: int) -> SampleScore:
        """Score one model output (the final answer or the whole transcript: the last answer block counts).
        Past ``config.sample_budget_s`` the sample gets reward 0 and failure ``timeout``."""
        step = as_step(step)
        scored = self._finish(run_with_budget(self.scorer.score, (text, query, step), self.config.sample_budget_s),
                              step, query)
        self._resources.log_scores(step, [scored])
        return scored

    def score_batch(self, texts: Sequence[Any], queries: Sequence[QueryLike], step: int) -> list[SampleScore]:
        """One ``SampleScore`` per output, in order, always: a sample past its budget (``timeout``) or whose
        scoring process died (``crash``, with ``config.workers`` > 0) gets reward 0; the others are unaffected."""
        if len(texts) != len(queries):
            raise ValueError(f"{len(texts)} outputs but {len(queries)} queries")
        step = as_step(step)
        items = [(t, q, step) for t, q in zip(texts, queries, strict=True)]  # each label read where it is scored
        if self.config.workers > 0:
            raw = self.pool.map(items)
        else:
            raw = score_all(self.scorer.score, items, self.config.sample_budget_s)
        scores = [self._finish(r, step, item[1]) for r, item in zip(raw, items, strict=True)]
        self._resources.log_scores(step, scores)
        return scores

    def _finish(self, outcome: SampleScore | Failed, step: int, query: QueryLike) -> SampleScore:
        """A score, or the zero score of a sample that timed out or whose scoring process died."""
        return outcome if not isinstance(outcome, Failed) else self.scorer.unscored(step, outcome.kind,
                                                                                    outcome.reason, query)

    def unscored(self, step: int, failure: str = ERROR, reason: str = "", query: QueryLike | None = None
                 ) -> SampleScore:
        """The zero score of a sample that could not be scored (``error``, ``timeout``, ``crash``, or
        ``no_answer`` for an episode cut short): reward 0, counted under exactly one failure category."""
        return self.scorer.unscored(as_step(step), failure, reason, query)

    def max_reward(self, step: int) -> float:
        """The largest reward a sample can get at ``step``: every weighted component at 1, the gate open."""
        return self.scorer.weighing.max_reward(as_step(step))

    def carried(self, scored: SampleScore) -> dict[str, float]:
        """What a rollout worker that cannot know the step sends the trainer beside the reward: every metric, and
        the six components always, which ``weigh_carried`` reads back at the trainer's step."""
        return self.scorer.carry.of(scored)

    @property
    def carried_names(self) -> tuple[str, ...]:
        """The keys of ``carried``, in order."""
        return self.scorer.carry.columns

    def weigh_carried(self, columns: Mapping[str, Any], step: int) -> Carried:
        """Carried samples (``carried``, one column per name) at ``step``: reward and success from the components,
        the metrics to log (``core`` at this step, components kept only where the config logs them)."""
        return self.scorer.carry.weigh(columns, as_step(step))

    # --- the success rule, both jobs' -------------------------------------------------------------------------

    @property
    def success_flag(self) -> str | None:
        """The trainer's per-sample field that decides success (``success.by=flag``), else None: the one question
        every adapter asks before reading flags."""
        return self.scorer.success.flag

    def success_of(self, rewards: np.ndarray, step: int, passed: np.ndarray | None = None) -> np.ndarray:
        """THE success rule (``reward.SuccessRule.of``): ``threshold``: reward >= threshold; ``flag``: the
        trainer's 0/1 flags, ``passed``; ``pass``: the final pass, ``passed``, or the reward reaching the stage's
        maximum when only rewards are known."""
        return self.scorer.success.of(np.asarray(rewards, dtype=np.float64).reshape(-1), as_step(step), passed)

    def success_from_rewards(self, rewards: Sequence[float] | np.ndarray, step: int) -> np.ndarray:
        """Success flags from scalar rewards alone (what an estimator sees in VERL and TRL): ``success_of``."""
        return self.success_of(np.asarray(rewards, dtype=np.float64), step)

    # --- the names a run logs (``observe.metric_names.MetricNames``) ----------------------------------------

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The fixed key set of ``SampleScore.metrics()`` (the groups the config's ``metrics`` keeps)."""
        return self.scorer.names.sample

    @property
    def advantage_metric_names(self) -> tuple[str, ...]:
        """The fixed key set of ``TokenAdvantages.stats`` (empty with the ``advantages`` group off)."""
        return self.scorer.names.advantage

    @property
    def metric_groups(self) -> dict[str, tuple[str, ...]]:
        """Every name each group can log, whether on or not (``monitor`` is empty with the monitor off)."""
        return self.scorer.names.groups

    def metric_columns(self, scores: Sequence[SampleScore]) -> dict[str, list[float]]:
        """Every name of ``metric_names`` with one value per sample, in order (what a trainer stacks)."""
        return self.scorer.names.columns(scores)

    def metric_means(self, scores: Sequence[SampleScore]) -> dict[str, float]:
        """The batch mean of every name of ``metric_names`` (0 for an empty batch)."""
        return self.scorer.names.means(scores)

    def logged_means(self, rows: Any) -> dict[str, float]:
        """The batch mean of each ``metric_names`` entry over per-sample metric dicts a trainer stored (VERL's
        ``reward_extra_info``); a name is left out only when no row has it."""
        return self.scorer.names.logged_means(rows)

    # --- job 2: advantages (``estimator.AdvantageEstimator``) ---------------------------------------------

    @property
    def uses_anchors(self) -> bool:
        """Whether the estimator groups turns by anchor state (GiGPO): the adapter then passes ``anchors``, by
        ``config.anchor_key``: the trainer's per-turn state ids, or ``tool_call_anchors`` of the turns' text."""
        return self._estimator.uses_anchors

    def require_estimator(self, where: str = "") -> None:
        """What estimating needs and a scoring-only config may leave out (``total_steps`` for α's decay, a success
        readable from the reward): a ``ConfigError`` naming it. Every route that estimates calls this when it
        starts (and ``advantages`` / ``estimate`` before each batch); routes that only score never do."""
        self.config.require_estimator(where)

    def alpha(self, step: int) -> float:
        """PlanPO's α(k) at ``step`` (0 for an estimator without α)."""
        return self._estimator.alpha(as_step(step))

    def estimate(self, rollouts: Rollouts, step: int) -> Advantages:
        """The configured estimator on per-turn rollouts at ``step`` (``planshape score``'s path); per-turn
        rewards it would ignore are refused (a ``StepRewardsIgnored`` naming the setting)."""
        return self._estimator.estimate(rollouts, as_step(step))

    def advantages(self, scores: Any, mask: torch.Tensor, index: Sequence[Any] | np.ndarray, step: int,
                   success: Sequence[bool] | np.ndarray | None = None,
                   trajectory: Sequence[Any] | np.ndarray | None = None,
                   turn_order: Sequence[int] | np.ndarray | None = None,
                   anchors: Sequence[Sequence[Any]] | None = None,
                   step_rewards: Sequence[Sequence[float]] | None = None) -> TokenAdvantages:
        """Per-token advantages of a batch: ``scores`` (B,), ``mask`` (B, L) assistant tokens, ``index`` (B,)
        group ids (any hashable; groups need not be contiguous), ``success`` (B,) or read from the scores.

        ``trajectory`` (B,): the row-per-turn layout, rows of one trajectory sharing an id (``advantages.layout``:
        the trajectory's turns are its rows' turns in ``turn_order``, default batch order; its outcome is its
        final row's). Without it, each row is one whole trajectory. Statistics count each trajectory once.
        ``anchors`` (B,): per row, the anchor state id of each of its assistant turns (GiGPO's step groups;
        ``uses_anchors``, ``tool_call_anchors``). ``step_rewards`` (B,): per row, each of its assistant turns' reward
        besides the outcome (``config.step_rewards.field``); in the row-per-turn layout the non-final rows' scores
        are per-turn rewards too (``config.step_rewards.rows``). Per-turn rewards the estimator would ignore are
        refused (a ``StepRewardsIgnored`` naming the setting)."""
        return self._estimator.advantages(scores, mask, index, as_step(step), success, trajectory, turn_order,
                                          anchors, step_rewards)

    # --- per-turn rewards a trainer's rows carry ------------------------------------------------------------

    def refuse_unread_step_rewards(self, names: Any, where: str) -> None:
        """Rows that carry per-turn rewards under the documented name (``turn_rewards``) while the config reads none
        (no ``step_rewards.field``): refused with the line to add, never ignored. ``names``: the fields the rows
        carry; ``where``: what carries them, for the message."""
        if self.step_reward_field is None and STEP_REWARDS_FIELD in set(names):
            raise ConfigError(f"{where} carries per-turn rewards ({STEP_REWARDS_FIELD!r}) that this planshape config "
                              f"does not read: set step_rewards: {{field: {STEP_REWARDS_FIELD}}} (with an estimator "
                              "that reads them: gigpo, or grpo, rloo or planpo with estimator_options.reward=sum), or "
                              "give the field another name if it is not a reward")

    @property
    def step_reward_field(self) -> str | None:
        """Where a trainer that keeps one row per trajectory holds each row's per-turn rewards
        (``config.step_rewards.field``), or None: the adapter then passes none."""
        return self.config.step_rewards.field

    # --- the agent side (``agent.AgentSide``) -------------------------------------------------------------

    @property
    def prompt_version(self) -> str:
        """The version of the Planner-R1 prompt ``messages`` builds (recorded with every dataset row)."""
        return self._agent.prompt_version

    def messages(self, record: Mapping[str, Any], include_tools: bool = False) -> list[dict[str, str]]:
        """The chat prompt of one query: the versioned Planner-R1 system prompt and the query text."""
        return self._agent.messages(record, include_tools)

    def tools(self) -> ToolBox:
        """The seven agent tools over the sandbox (one store per process, shared with scoring)."""
        return self._agent.tools()

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI-style function schemas of the seven tools."""
        return self._agent.tool_schemas

    # --- what will run, and why (``describe.Description``); the process's resources -------------------------

    def describe(self) -> dict[str, Any]:
        """Everything a user should see before launching a run (estimator-only: what the estimator uses)."""
        return self._description.describe()

    def explain(self, answer: Any, query: QueryLike) -> Explanation:
        """Every check's verdict on one output, with each claim and the sandbox rows it was compared with, the text
        read and checked exactly as the reward reads and checks it."""
        return self._description.explain(answer, query)

    @property
    def pool(self) -> ScoringPool:
        """The scoring processes of ``config.workers`` (each builds this config's scorer once)."""
        return self._resources.pool

    def close(self) -> None:
        """Stop the scoring processes and write out the verdict log (also done at interpreter exit)."""
        self._resources.close()


@lru_cache(maxsize=8)
def _shared(cls: type[Shaper], text: bool, key: str, run_steps: int | None, run_source: str,
            loaded: tuple[str, ...]) -> Shaper:
    return cls.from_mapping(key if text else json.loads(key), run_steps, run_source)
