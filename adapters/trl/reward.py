"""The planshape reward as a TRL ``reward_funcs`` callable.

TRL calls it with keyword arguments only: ``prompts``, ``completions``, ``completion_ids``, every dataset column (as
per-row lists), ``trainer_state`` (from 0.20) and ``log_metric`` / ``log_extra`` (from 1.0). Before 1.0 the metrics
reach TRL's log through ``log_metrics_to(trainer)``, which hands the reward the trainer's own metric lists
(``GRPOTrainer._metrics``, averaged and logged by ``GRPOTrainer.log`` with ``reward`` and ``kl``). The query comes
from the dataset's ``planshape_query`` column (JSON text, written by ``data.to_dataset``) or, for a raw TravelPlanner
dataset, from the row's own columns; the step is ``trainer_state.global_step`` (optimizer steps completed, the
facade's convention). The Planner-R1 schema gate and stage weights stay inside the facade: this is one composite
function, not one function per component, because the gate multiplies and ``reward_weights`` only add.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from planshape.shaping.facade import PASSED, SampleScore, Shaper, metric_name, trainer_step

logger = logging.getLogger(__name__)
QUERY_COLUMN = "planshape_query"
FAILURE_COLUMN, REASON_COLUMN = metric_name("failure"), metric_name("reason")
# Keyword arguments TRL adds beside the dataset columns; they are never part of a query record.
TRAINER_KWARGS = frozenset({"prompts", "completions", "completion_ids", "trainer_state", "log_metric", "log_extra",
                            "environments"})


class PlanshapeReward:
    """A picklable reward function: one float per completion, every ``shaper.metric_names`` logged per batch.

    Its ``__name__`` is TRL's key for it (``rewards/planshape/mean``). Model output never raises here; a
    malformed dataset row does (it is a configuration error, and names the row).
    """

    def __init__(self, shaper: Shaper, query_column: str = QUERY_COLUMN, name: str = "planshape"):
        self.shaper = shaper
        self.query_column = query_column
        self.__name__ = name
        self.sink: Callable[[str, float], None] | None = None  # ``log_metrics_to``: TRL < 1.0 passes no log_metric
        self._warned = False

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], trainer_state: Any = None,
                 log_metric: Callable[[str, float], None] | None = None,
                 log_extra: Callable[[str, list], None] | None = None, **columns: Any) -> list[float]:
        step = state_step(trainer_state)
        scores = rewards(self.shaper, completions, self.queries(columns, len(completions)), step)
        log_metric = log_metric or self.sink
        if log_metric is None and scores and not self._warned:
            logger.warning("planshape reward: no log_metric from TRL (< 1.0), so its metrics are not logged; call "
                           "planshape.adapters.trl.log_metrics_to(trainer) once after building the trainer")
            self._warned = True
        log_scores(self.shaper.metric_means(scores), scores, log_metric, log_extra)
        return [s.reward for s in scores]

    def queries(self, columns: Mapping[str, Any], n: int) -> list[Any]:
        """One query per completion: the JSON column when present, else the row's own TravelPlanner columns."""
        if self.query_column in columns:
            column = columns[self.query_column]
            if isinstance(column, (str, bytes, Mapping)) or not isinstance(column, Sequence) or len(column) != n:
                raise ValueError(f"column {self.query_column!r} must hold one query per completion ({n}), got "
                                 f"{len(column) if isinstance(column, Sequence) else type(column).__name__}")
            return list(column)
        record_columns = {k: v for k, v in columns.items() if k not in TRAINER_KWARGS and isinstance(v, list)}
        if "query" not in record_columns:
            raise ValueError(f"the dataset has neither a {self.query_column!r} column nor TravelPlanner columns "
                             f"(got {sorted(columns)}); build it with planshape.adapters.trl.data.to_dataset")
        uneven = sorted(k for k, v in record_columns.items() if len(v) != n)
        if uneven:
            raise ValueError(f"dataset column(s) {', '.join(uneven)} do not hold one value per completion ({n})")
        return [{k: v[i] for k, v in record_columns.items()} for i in range(n)]

    def __getstate__(self) -> dict[str, Any]:  # the sink is the trainer's: a copy elsewhere is bound again
        # The shaper holds open store connections; a copy in another process rebuilds it from the config.
        return {"config": self.shaper.config, "query_column": self.query_column, "name": self.__name__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        PlanshapeReward.__init__(self, Shaper(state["config"]), state["query_column"], state["name"])

    def __repr__(self) -> str:
        return f"PlanshapeReward(name={self.__name__!r}, query_column={self.query_column!r})"


def state_step(trainer_state: Any) -> int:
    """The step of TRL's ``trainer_state`` (``global_step``: optimizer steps completed); 0 without one (< 0.20)."""
    if trainer_state is None:
        return 0
    return trainer_step(getattr(trainer_state, "global_step", None), "trainer_state.global_step")


def rewards(shaper: Shaper, outputs: Sequence[Any], labels: Sequence[Any], step: int) -> list[SampleScore]:
    """The reward entry (the adapter contract): each completion's final assistant message (``final_turn``)
    scored with its query, as one batch."""
    return shaper.score_batch([final_turn(c) for c in outputs], labels, step)


def log_scores(means: Mapping[str, float], scores: Sequence[Any], log_metric: Callable[[str, float], None] | None,
               log_extra: Callable[[str, list], None] | None) -> None:
    """What a reward function logs of a batch (in-process or served): every metric's batch mean
    (``log_metric``), and each completion's failure and reason in TRL's completions table (``log_extra``)."""
    if log_metric is not None and scores:
        for name, value in means.items():
            log_metric(name, value)
    if log_extra is not None:
        log_extra(FAILURE_COLUMN, [s.failure or PASSED for s in scores])
        log_extra(REASON_COLUMN, [s.reason for s in scores])


def log_metrics_to(trainer: Any) -> None:
    """TRL < 1.0: every ``PlanshapeReward`` of ``trainer.reward_funcs`` appends its metric means to the trainer's
    own metric lists (``_metrics[mode]``, averaged over the logging window and logged by ``GRPOTrainer.log``), as
    ``log_metric`` does from 1.0; a no-op for the rewards of a TRL that passes ``log_metric``."""
    metrics = getattr(trainer, "_metrics", None)
    if not isinstance(metrics, Mapping) or "train" not in metrics:
        raise TypeError(f"{type(trainer).__name__} keeps no GRPOTrainer metric lists (_metrics); pass a GRPOTrainer")

    def sink(name: str, value: float) -> None:
        mode = "train" if trainer.model.training else "eval"
        metrics[mode][name].append(value)

    for func in getattr(trainer, "reward_funcs", []):
        if isinstance(func, PlanshapeReward):
            func.sink = sink


def final_turn(completion: Any) -> str:
    """The text the plan is read from: a plain completion, or the last assistant message of a conversation.

    Content may be a string or a list of content blocks; anything else (a model-driven oddity) reads as "".
    """
    if isinstance(completion, str):
        return completion
    if not isinstance(completion, Sequence):
        return ""
    for message in reversed(completion):
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            return _content_text(message.get("content"))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(part.get("text", "") for part in content
                       if isinstance(part, Mapping) and isinstance(part.get("text", ""), str))
    return ""


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import Rewards

    _contract: Rewards = rewards
