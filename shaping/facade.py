"""The facade every trainer adapter stands on: the only planshape module an adapter imports.

An adapter builds one ``Shaper`` from its trainer's settings (``Shaper.from_mapping``), then

* scores model outputs for a step: ``score`` / ``score_batch`` -> ``SampleScore`` (reward, success, metrics
  under fixed names, failure category and reason); model output never raises;
* turns (scores, assistant mask, group ids, step) into per-token advantages: ``advantages`` ->
  ``TokenAdvantages`` (the (B, L) tensor on the mask's device, and the statistics to log).

Step convention, stated once: ``step`` is the number of optimizer steps completed before the batch, so the
first batch is step 0 (VERL ``global_steps - 1``, TRL ``trainer_state.global_step``, OpenRLHF
``global_step``). Stage boundaries are half-open. See docs/adapter-kit.md.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from planshape.validators.travelplanner import prompt
from planshape.validators.travelplanner import sample as sample_world
from planshape.validators.travelplanner.explain import Explanation, explain
from planshape.validators.travelplanner.query import Query, read_query_rows
from planshape.validators.travelplanner.store import open_store
from planshape.validators.travelplanner.tools import TOOL_SCHEMAS, ToolBox

from . import plugins
from .budget import Failed, run_with_budget, score_all
from .components import COMPONENTS, ERROR, NO_ANSWER, PASSED, failure_categories
from .config import SAMPLE_WORLD, ConfigError, ShapingConfig, as_mapping, takes_alpha
from .hookspecs import hookimpl
from .observe.metric_names import ADVANTAGE_STATS, CORE, FAILURE, GROUPS, PREFIX, metric_name
from .observe.monitor import MONITOR_METRICS, NOT_CHECKED, Watch, watch_metrics
from .observe.sample_log import SampleLog
from .observe.verdict_log import CHECK_KEYS, NOT_RUN, verdict_code
from .preflight import Report, check_database, check_shaper
from .reward import RewardResult, Scorer
from .splits import PLANNER_R1_VAL_SIZE, split_queries

if TYPE_CHECKING:
    import torch

    from .advantages import Advantages, Rollouts
    from .scoring_pool import ScoringPool


__all__ = ["ConfigError", "NO_ANSWER", "PASSED", "PREFIX", "Report", "SampleScore", "Shaper", "ShapingConfig",
           "TokenAdvantages", "add_check_arguments", "add_data_arguments", "add_split_arguments", "as_mapping",
           "check_database", "check_shaper", "data_shaper", "hookimpl", "metric_name", "read_all_queries"]



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
            out.update({metric_name("reward"): self.reward, metric_name("success"): float(self.success)})
        if "components" in self.groups:
            out.update({metric_name(k): float(self.components.get(k, 0.0)) for k in COMPONENTS})
        if "failures" in self.groups:
            counted = self.failure or PASSED
            out.update({metric_name(FAILURE + c): float(c == counted) for c in self.categories})
        if "monitor" in self.groups and self.watch is not None:
            out.update({metric_name(k): v for k, v in watch_metrics(self.watch).items()})
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


class Shaper:
    """One validated configuration, bound to its store, scorer and estimator (build one per process)."""

    def __init__(self, config: ShapingConfig):
        self.config = config
        self.schedule = config.schedule_object()
        self.alpha_decay = config.alpha_decay()
        self.estimator = plugins.estimators()[config.estimator]
        commonsense, hard = plugins.checks()
        self.categories = failure_categories([c.key for c in commonsense], [c.key for c in hard])
        # THE metric names: every name a group can log (the monitor's only with the monitor on), in log order.
        self.metric_groups: dict[str, tuple[str, ...]] = {
            "core": tuple(metric_name(k) for k in CORE),
            "components": tuple(metric_name(k) for k in COMPONENTS),
            "failures": tuple(metric_name(FAILURE + c) for c in self.categories),
            "monitor": tuple(metric_name(k) for k in MONITOR_METRICS) if config.monitor else (),
            "advantages": tuple(metric_name(k) for k in ADVANTAGE_STATS),
        }
        on = {g: self.metric_groups[g] if g in config.metrics else () for g in GROUPS}
        self.metric_names: tuple[str, ...] = (*on["core"], *on["components"], *on["failures"], *on["monitor"])
        self.advantage_metric_names: tuple[str, ...] = on["advantages"]
        self._log: SampleLog | None = None
        self._pool: ScoringPool | None = None

    @classmethod
    def from_mapping(cls, source: Any, run_steps: int | None = None, run_source: str = "the trainer") -> Shaper:
        """From a dict, OmegaConf node, JSON/YAML text or file; raises ``ConfigError`` naming every bad field.
        ``run_steps``: the optimizer steps the trainer will run, when it knows (``ShapingConfig.from_mapping``)."""
        return cls(ShapingConfig.from_mapping(source, run_steps, run_source))

    # --- the sandbox, opened once per process on first use -------------------------------------------------

    @property
    def estimator_only(self) -> bool:
        """No database: this facade estimates advantages from the trainer's reward and scores nothing."""
        return self.config.estimator_only

    @property
    def database_path(self) -> Path | None:
        if self.config.database is None:
            return None
        return sample_world.sample_database() if self.config.database == SAMPLE_WORLD else Path(self.config.database)

    @cached_property
    def scorer(self) -> Scorer:
        if self.database_path is None:
            raise ConfigError("this planshape config has no database (estimator-only: advantages from the "
                              "trainer's own reward); scoring TravelPlanner plans or their tools needs database:")
        return Scorer(open_store(str(self.database_path), self.config.backend), self.config.mode, self.schedule,
                      self.config.component_weights, self.config.answer.max_chars, monitor=self.config.monitor)

    def tools(self) -> ToolBox:
        """The seven agent tools over the sandbox (one store per process, shared with scoring)."""
        return ToolBox(self.scorer.store, max_chars=self.config.tools.max_chars)

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI-style function schemas of the seven tools."""
        return list(TOOL_SCHEMAS.values())

    # --- rewards -------------------------------------------------------------------------------------------

    def score(self, text: Any, query: Query | Mapping[str, Any] | str, step: int) -> SampleScore:
        """Score one model output (the final answer or the whole transcript: the last answer block counts).

        Past ``config.sample_budget_s`` the sample gets reward 0 and failure ``timeout``."""
        step = _step(step)
        query = _query(query)
        scored = self._finish(run_with_budget(self._score_now, (text, query, step), self.config.sample_budget_s),
                              step, query)
        self._log_scores(step, [scored])
        return scored

    def score_batch(self, texts: Sequence[Any], queries: Sequence[Query | Mapping[str, Any] | str],
                    step: int) -> list[SampleScore]:
        """One ``SampleScore`` per output, in order, always: a sample past its budget (``timeout``) or whose
        scoring process died (``crash``, with ``config.workers`` > 0) gets reward 0; the others are unaffected."""
        if len(texts) != len(queries):
            raise ValueError(f"{len(texts)} outputs but {len(queries)} queries")
        step = _step(step)
        items = [(t, _query(q), step) for t, q in zip(texts, queries, strict=True)]
        if self.config.workers > 0:
            raw = self.pool.map(items)
        else:
            raw = score_all(self._score_now, items, self.config.sample_budget_s)
        scores = [self._finish(r, step, item[1]) for r, item in zip(raw, items, strict=True)]
        self._log_scores(step, scores)
        return scores

    def _score_now(self, text: Any, query: Query | Mapping[str, Any], step: int) -> SampleScore:
        query = _parse_query(query)
        return replace(self._wrap(self.scorer.score(text, query, step)), level=query.level or "", days=query.days)

    def _finish(self, outcome: SampleScore | Failed, step: int, query: Query | Mapping[str, Any]) -> SampleScore:
        """A score, or the zero score of a sample that timed out or whose scoring process died."""
        if not isinstance(outcome, Failed):
            return outcome
        return self.unscored(step, outcome.kind, outcome.reason, query)

    def unscored(self, step: int, failure: str = ERROR, reason: str = "",
                 query: Query | Mapping[str, Any] | None = None) -> SampleScore:
        """The zero score of a sample that could not be scored (``error``, ``timeout``, ``crash``, or
        ``no_answer`` for an episode cut short): reward 0, counted under exactly one failure category."""
        if failure not in self.categories:
            raise ValueError(f"unknown failure category {failure!r}; known: {list(self.categories)}")
        level, days = "", 0
        if query is not None:
            try:
                parsed = _parse_query(_query(query))
                level, days = parsed.level or "", parsed.days
            except (ValueError, TypeError):  # the query itself may be what could not be read
                pass
        step = _step(step)
        return SampleScore(0.0, False, failure, reason, self.schedule.stage(step).name, step,
                           dict.fromkeys(COMPONENTS, 0.0), self.categories,
                           watch=NOT_CHECKED if self.config.monitor else None, level=level, days=days,
                           groups=self.config.metrics)

    def _wrap(self, scored: RewardResult) -> SampleScore:
        success = self.success_of(np.asarray([scored.reward]), scored.step,
                                  np.asarray([scored.components.get("pass", 0.0) == 1.0]))[0]
        watch = (scored.watch or NOT_CHECKED) if self.config.monitor else None
        return SampleScore(scored.reward, bool(success), scored.failure, scored.reason, scored.stage, scored.step,
                           scored.components, self.categories, verdict_code(scored.result), watch,
                           groups=self.config.metrics)

    def metric_columns(self, scores: Sequence[SampleScore]) -> dict[str, list[float]]:
        """Every name of ``metric_names`` with one value per sample, in order (what a trainer stacks or averages
        over a batch)."""
        rows = [s.metrics() for s in scores]
        return {name: [row[name] for row in rows] for name in self.metric_names}

    def metric_means(self, scores: Sequence[SampleScore]) -> dict[str, float]:
        """The batch mean of every name of ``metric_names`` (0 for an empty batch)."""
        return {name: (sum(col) / len(col) if col else 0.0) for name, col in self.metric_columns(scores).items()}

    # --- the process pool and the verdict log (built on first use, once per process) ----------------------

    @property
    def pool(self) -> ScoringPool:
        """The scoring processes of ``config.workers`` (each builds this config's scorer once)."""
        if self._pool is None:
            from .scoring_pool import ScoringPool

            worker = self.config.model_copy(update={"workers": 0, "log_dir": None, "sample_budget_s": None})
            self._pool = ScoringPool(partial(_pool_scorer, worker.model_dump()), self.config.workers,
                                     self.config.sample_budget_s)
        return self._pool

    def _verdict_log(self) -> SampleLog | None:
        if self.config.log_dir is None:
            return None
        if self._log is None:
            self._log = SampleLog(self.config.log_dir, meta={"describe": self.describe()})
        return self._log

    def _log_scores(self, step: int, scores: list[SampleScore]) -> None:
        log = self._verdict_log()
        if log is not None:
            log.scores(step, scores)

    def close(self) -> None:
        """Stop the scoring processes and write out the verdict log (also done at interpreter exit)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def max_reward(self, step: int) -> float:
        """The largest reward a sample can get at ``step``: every weighted component at 1, the gate open."""
        return float(sum(self.schedule.weights(_step(step)).values()))

    def success_from_rewards(self, rewards: Sequence[float] | np.ndarray, step: int) -> np.ndarray:
        """Success flags from scalar rewards alone (what an estimator sees in VERL and TRL): ``success_of``."""
        return self.success_of(np.asarray(rewards, dtype=np.float64).reshape(-1), _step(step))

    def success_of(self, rewards: np.ndarray, step: int, passed: np.ndarray | None = None) -> np.ndarray:
        """THE success rule, used by every path (facade, ``planshape score``, every adapter).

        ``threshold``: reward >= threshold. ``flag``: the trainer's per-sample flags, given as ``passed``.
        ``pass``: the final pass, read from ``passed`` when the caller has the
        components, else from the reward reaching the stage's maximum, which implies the final pass for every
        schedule the config accepted (``config.success_readable_from_reward``).
        """
        if self.config.success.by == "threshold":
            return rewards >= self.config.success.threshold
        if self.config.success.by == "flag" and passed is None:
            raise ValueError(f"success.by='flag': pass the trainer's per-sample {self.config.success.flag!r} flags "
                             "(the adapter reads them); they cannot be read from the reward")
        if passed is not None:
            from .advantages.inputs import success_flags  # 0/1 only: 0.5, NaN or "False" is an error

            return success_flags(passed, len(rewards))
        top = self.max_reward(step)
        return rewards >= top - 1e-6 * max(1.0, top)

    @property
    def staged(self) -> bool:
        """Whether the reward's weights change with the step: a trainer must then pass the real step."""
        return self.config.staged

    @staticmethod
    def steps_completed(step_being_run: Any, field: str = "global_steps") -> int | None:
        """planshape's step from a trainer counter that starts at 1 for the first step (VERL's ``global_steps``):
        one less, never below 0; None when there is no counter. A counter that is not a whole number (``inf``,
        ``"x"``, ``True``) is a trainer-side error: ``ValueError`` naming ``field``."""
        if step_being_run is None:
            return None
        return max(Shaper.trainer_step(step_being_run, field) - 1, 0)

    @staticmethod
    def trainer_step(counter: Any, field: str) -> int:
        """A trainer's step counter as an int (TRL's ``global_step``, OpenRLHF's ``global_step``): a whole,
        finite number >= 0, else ``ValueError`` naming ``field`` and what was given."""
        value = counter.item() if isinstance(counter, np.generic) else counter
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value) or value < 0:
            raise ValueError(f"{field} must be a whole number of steps >= 0 (the trainer's step counter), got "
                             f"{counter!r}")
        return int(value)

    # --- advantages ----------------------------------------------------------------------------------------

    def alpha(self, step: int) -> float:
        """PlanPO's α(k) at ``step`` (0 for an estimator without α)."""
        return self.alpha_decay(_step(step)) if takes_alpha(self.estimator) else 0.0

    def estimator_options(self, step: int) -> dict[str, Any]:
        """The estimator's keyword arguments at ``step``: the config's options, and α(step) when it takes α."""
        options = dict(self.config.estimator_options)
        if takes_alpha(self.estimator):
            options["alpha"] = self.alpha(step)
        return options

    def estimate(self, rollouts: Rollouts, step: int) -> Advantages:
        """The configured estimator on per-turn rollouts at ``step`` (``planshape score``'s path)."""
        return self.estimator(rollouts, **self.estimator_options(_step(step)))

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
        from .advantages.anchors import anchor_codes
        from .advantages.inputs import success_flags
        from .advantages.tokens import broadcast, token_advantages, turn_spans  # torch only when asked for

        step = _step(step)
        reward = np.asarray(scores.detach().double().cpu() if hasattr(scores, "detach") else scores,
                            dtype=np.float64).reshape(-1)
        flags = self.success_from_rewards(reward, step) if success is None else success_flags(success, len(reward))
        spans = turn_spans(mask)
        turns, lengths = spans.numpy()
        anchor = None if anchors is None else anchor_codes(anchors, turns)
        if trajectory is None:
            tokens, result = token_advantages(reward, mask, index, self.estimator, success=flags, spans=spans,
                                              anchor=anchor, **self.estimator_options(step))
            per_row, per_turn, turn_term = result.trajectory, result.per_turn, result.turn
            stats_of = (result, turns, lengths, flags, index)
            groups = index.tolist() if hasattr(index, "tolist") else list(index)
            logged = (groups, reward, flags, turns, lengths, per_row, turn_term)
        else:
            from .advantages.layout import gather_rows

            rows = gather_rows(trajectory, index, reward, flags, turns, lengths, turn_order, anchor)
            result = self.estimator(rows.rollouts, **self.estimator_options(step))
            per_turn, turn_term = rows.to_rows(result.per_turn), rows.to_rows(result.turn)
            per_row = result.trajectory[rows.trajectory]
            tokens = broadcast(per_turn, mask, spans)
            ro = rows.rollouts
            stats_of = (result, ro.turns, ro.lengths, ro.success, ro.group)
            logged = (ro.group.tolist(), ro.reward, ro.success, ro.turns, ro.lengths, result.trajectory, result.turn)
        log = self._verdict_log()
        if log is not None:  # one record per trajectory, in either layout
            log.advantages(step, *logged)
        return TokenAdvantages(tokens, self._stats(*stats_of), per_row, per_turn, turn_term, turns, lengths, flags)

    @property
    def uses_anchors(self) -> bool:
        """Whether the estimator groups turns by anchor state (GiGPO): the adapter then passes ``anchors``, by
        ``config.anchor_key``: the trainer's per-turn state ids, or ``tool_call_anchors`` of the turns' text."""
        return bool(getattr(self.estimator, "uses_anchors", False))

    @staticmethod
    def tool_call_anchors(turn_texts: Sequence[Any]) -> list[str]:
        """The TravelPlanner anchor of each turn of one trajectory from its assistant turns' text: the tool
        calls and arguments made before the turn (``advantages/anchors.py``); never raises on model text."""
        from .advantages.anchors import tool_call_anchors

        return tool_call_anchors(turn_texts)

    @staticmethod
    def turn_texts(mask: torch.Tensor, token_ids: torch.Tensor, decode: Any) -> list[list[str]]:
        """Each row's assistant turns as text: ``decode`` (a tokenizer's ``decode``) of the ``token_ids`` under
        each run of 1s of the (B, L) ``mask`` (aligned with it), in order (``tool_call_anchors`` reads them)."""
        from .advantages.turns import turn_spans

        spans = turn_spans(mask)
        ids = token_ids.tolist()
        texts: list[list[str]] = [[] for _ in range(mask.shape[0])]
        for row, start, end in zip(spans.rows.tolist(), spans.starts.tolist(), spans.ends.tolist(), strict=True):
            texts[row].append(decode(ids[row][start:end]))
        return texts

    @staticmethod
    def final_turns(mask: torch.Tensor) -> list[tuple[int, int] | None]:
        """The ``[start, end)`` columns of each row's final assistant turn in a (B, L) assistant mask (the last
        run of 1s; None for a row with no turn): where a trainer decodes the answer from."""
        from .advantages.turns import turn_spans

        spans = turn_spans(mask)
        turns = spans.turns.tolist()
        last = np.cumsum(turns) - 1
        starts, ends = spans.starts.tolist(), spans.ends.tolist()
        return [(starts[k], ends[k]) if t else None for t, k in zip(turns, last.tolist(), strict=True)]

    def _stats(self, result: Advantages, turns: np.ndarray, lengths: np.ndarray, success: np.ndarray,
               index: Sequence[Any] | np.ndarray) -> dict[str, float]:
        from .advantages.inputs import group_codes

        groups = group_codes(index)
        per_group = np.bincount(groups, weights=success.astype(np.float64))

        def mean(x: np.ndarray) -> float:
            return float(x.mean()) if len(x) else 0.0

        def std(x: np.ndarray) -> float:
            return float(x.std()) if len(x) else 0.0

        values = {
            "alpha": result.alpha, "adv_e_mean": mean(result.trajectory), "adv_e_std": std(result.trajectory),
            "adv_s_mean": mean(result.turn), "adv_s_std": std(result.turn), "turns_mean": mean(turns),
            "turns_max": float(turns.max(initial=0)), "turn_tokens_mean": mean(lengths),
            "success_rate": mean(success.astype(np.float64)), "groups_multi_success": mean(per_group >= 2),
        }
        return {name: float(values[name.removeprefix(PREFIX)]) for name in self.advantage_metric_names}

    # --- data ----------------------------------------------------------------------------------------------

    prompt_version = prompt.PROMPT_VERSION

    def messages(self, record: Mapping[str, Any], include_tools: bool = False) -> list[dict[str, str]]:
        """The chat prompt of one query: the versioned Planner-R1 system prompt and the query text."""
        return prompt.messages(record, include_tools)

    @staticmethod
    def read_queries(path: str | Path) -> list[dict[str, Any]]:
        """TravelPlanner records (HF CSV/JSONL/JSON); a row that is not a valid query fails with its number.
        ``"sample"``: the bundled sample world's queries (planned against ``database: sample``)."""
        source = sample_world.sample_queries() if str(path) == SAMPLE_WORLD else path
        return [record for record, _ in read_query_rows(source)]

    @staticmethod
    def gold_answer(record: Mapping[str, Any]) -> str:
        """The gold plan of a record with one (TravelPlanner's train split: ``annotated_plan``), converted from the
        upstream string format and written as a model's answer: the text that scores as the gold plan. A
        ``ValueError`` names a record without one."""
        from planshape.validators.travelplanner.answer import answer_text
        from planshape.validators.travelplanner.plan_format import from_upstream
        from planshape.validators.travelplanner.query import gold_plan

        if not record.get("annotated_plan"):
            raise ValueError("the record has no annotated_plan (only TravelPlanner's train split holds gold plans)")
        return answer_text(from_upstream(gold_plan(record)))

    @staticmethod
    def read_query(label: Query | Mapping[str, Any] | str) -> Query:
        """A trainer's query label (a record, its JSON text, or a ``Query``) read as the reward reads it;
        ``ValueError`` saying what it must be (what a preflight runs on a data file's first row)."""
        return _parse_query(_query(label))

    @staticmethod
    def query_json(record: Mapping[str, Any]) -> str:
        """A query as the reward reads it back from a dataset row (every trainer's label column): the record's
        query fields as JSON text; the plan and reference information stay out (large, and never read)."""
        return json.dumps({k: record[k] for k in Query.model_fields if k in record}, default=str)

    @staticmethod
    def split_queries(records: Sequence[Mapping[str, Any]], val_size: int = PLANNER_R1_VAL_SIZE,
                      seed: int = 0) -> tuple[list, list]:
        """(train, validation) records: Planner-R1's seeded re-split, stratified by level (``splits.py``)."""
        return split_queries(records, val_size, seed)

    # --- what will run -------------------------------------------------------------------------------------

    def explain(self, text: Any, query: Query | Mapping[str, Any] | str) -> Explanation:
        """Every check's verdict on one output, with each claim and the sandbox rows it was compared with."""
        return explain(text, _query(query), self.scorer.store, self.config.mode)

    def describe(self) -> dict[str, Any]:
        """Everything a user should see before launching a run (estimator-only: what the estimator uses)."""
        decay = self.alpha_decay
        estimator = {
            "estimator": self.config.estimator, "estimator_options": dict(self.config.estimator_options),
            "alpha": ({"init": decay.init, "final": decay.final, "steps": decay.steps}
                      if takes_alpha(self.estimator) else None),
            "success": self.config.success.model_dump(exclude_none=True),
            "step_convention": "optimizer steps completed, from 0",
        }
        if self.estimator_only:
            return {"database": None, "estimator_only": True, **estimator, "log_dir": self.config.log_dir,
                    "plugins": plugins.versions()}
        return {
            "database": None if self.database_path is None else str(self.database_path),
            "backend": self.config.backend, "mode": self.config.mode,
            "schedule": self.schedule.name,
            "stages": [{"name": s.name, "from_step": s.start,
                        "until_step": nxt.start if nxt else None, "weights": dict(s.weights)}
                       for s, nxt in zip(self.schedule.stages, [*self.schedule.stages[1:], None], strict=True)],
            "estimator": self.config.estimator, "estimator_options": dict(self.config.estimator_options),
            "alpha": ({"init": decay.init, "final": decay.final, "steps": decay.steps}
                      if takes_alpha(self.estimator) else None),
            "success": self.config.success.model_dump(exclude_none=True),
            "step_convention": "optimizer steps completed, from 0",
            "prompt_version": self.prompt_version,
            "monitor": self.config.monitor, "metrics": list(self.config.metrics), "log_dir": self.config.log_dir,
            "sample_budget_s": self.config.sample_budget_s, "workers": self.config.workers,
            "plugins": plugins.versions(),
        }


def add_split_arguments(parser: argparse.ArgumentParser, out_flag: str | None = None) -> None:
    """The flags of Planner-R1's 180/45 re-split (``Shaper.split_queries``), the same in every adapter's data step.
    ``out_flag``: where the validation rows go, for a data step that splits only when asked."""
    if out_flag is not None:
        parser.add_argument(out_flag, help="also split off validation rows (Planner-R1's re-split, stratified by "
                            "level) and write them here")
    parser.add_argument("--val-size", type=int, default=PLANNER_R1_VAL_SIZE,
                        help=f"validation rows, stratified by level (default {PLANNER_R1_VAL_SIZE})")
    parser.add_argument("--seed", type=int, default=0, help="the split's seed")


DATA_CONFIG = '{"database": "sample", "estimator": "grpo"}'
"""A data step's default config: the rows depend on the prompt alone, not on the database or the estimator."""


def add_data_arguments(parser: argparse.ArgumentParser, out_help: str, val_out: bool = True) -> None:
    """The one argument shape of every adapter's ``prepare-data``: ``QUERIES... -o OUT [--config FILE]
    [--val-out FILE] [--val-size N] [--seed S]``."""
    parser.add_argument("queries", nargs="+", help="TravelPlanner query files (HF CSV/JSONL/JSON), merged; 'sample' "
                        "for the bundled sample world's queries")
    parser.add_argument("-o", "--out", required=True, help=out_help)
    parser.add_argument("--config", default=DATA_CONFIG, help="the run's planshape config (file or inline "
                        "YAML/JSON); the rows depend only on its prompt (default: the sample world)")
    add_split_arguments(parser, "--val-out" if val_out else None)


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--config`` of every adapter's ``check`` (the planshape config the run will use)."""
    parser.add_argument("--config", required=True, help="the run's planshape config (file or inline YAML/JSON)")


def data_shaper(config: Any) -> Shaper:
    """The ``Shaper`` of a data step: the run's config, validated, before the run's length is known (a
    ``total_steps`` it leaves unset is not needed for prompts)."""
    settings = as_mapping(config)
    if isinstance(settings, Mapping) and settings.get("total_steps") is None:
        settings = {**settings, "total_steps": 1 << 30}
    return Shaper.from_mapping(settings)


def read_all_queries(shaper: Shaper, paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """The records of every query file, in order (``Shaper.read_queries`` of each)."""
    return [record for path in paths for record in shaper.read_queries(path)]


def _step(step: Any) -> int:
    """Steps are trainer-supplied (configuration-grade): a bad one raises, naming what was given."""
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 0:
        raise ValueError(f"step must be an int >= 0 (optimizer steps completed), got {step!r}")
    return int(step)


def _query(query: Query | Mapping[str, Any] | str) -> Query | Mapping[str, Any]:
    """A trainer-side query (a dataset label): its JSON text is parsed here, nesting bounded; a bad one raises
    ``ValueError`` saying what it must be (the one reading of every trainer's label)."""
    if isinstance(query, (bytes, bytearray)):
        query = bytes(query).decode("utf-8", "replace")
    if isinstance(query, str):
        try:
            query = json.loads(query)
        except RecursionError:
            raise ValueError("query text nests too deeply to be a TravelPlanner record") from None
        except ValueError as exc:
            raise ValueError(f"query text is not JSON ({exc})") from None
    if not isinstance(query, (Query, Mapping)):
        raise ValueError(f"a query is a TravelPlanner record (mapping), its JSON text or a Query, "
                         f"got {type(query).__name__}")
    return query


def _parse_query(query: Query | Mapping[str, Any]) -> Query:
    if isinstance(query, Query):
        return query
    try:
        return Query.from_record(query)
    except RecursionError:
        raise ValueError("the query record nests too deeply to be a TravelPlanner record") from None


def _pool_scorer(config: dict[str, Any]):
    """A pool worker's scorer: this config's ``Shaper``, built once in the worker process."""
    return Shaper(ShapingConfig.model_validate(config))._score_now
