"""The planshape reward for TRL, scored by a ``planshape serve`` on CPU nodes: an async ``reward_funcs`` entry.

    from planshape.adapters.trl.remote import RemotePlanshapeReward
    trainer = GRPOTrainer(..., reward_funcs=[RemotePlanshapeReward("http://cpu-node-0:8000", "/shared/token")])

TRL awaits it on its own event loop (an async ``__call__`` is detected by ``trl.trainer.utils.is_async_callable``),
so every completion of a batch is in flight at once. It logs what the in-process ``PlanshapeReward`` logs: the
batch mean of every metric name (``log_metric``), and each completion's failure and reason (``log_extra``); the
step is ``trainer_state.global_step``. A completion the server never answers scores 0 under ``timeout`` or
``error`` with the reason (each request is timed out and retried), and the step goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from planshape.shaping.facade import RewardClient

from .reward import QUERY_COLUMN, PlanshapeReward, final_turn, log_scores, state_step


class RemotePlanshapeReward(PlanshapeReward):
    """A picklable async reward function over one server; its ``__name__`` is TRL's key (``rewards/planshape``)."""

    def __init__(self, url: str, token_file: str | None = None, timeout_s: float = 60.0, retries: int = 3,
                 query_column: str = QUERY_COLUMN, name: str = "planshape"):
        self.client = RewardClient(url, token_file, timeout_s, retries)
        self.query_column = query_column
        self.__name__ = name

    async def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], trainer_state: Any = None,  # type: ignore[override]  # TRL awaits an async reward function
                       log_metric: Callable[[str, float], None] | None = None,
                       log_extra: Callable[[str, list], None] | None = None, **columns: Any) -> list[float]:
        step = state_step(trainer_state)
        queries = self.queries(columns, len(completions))
        scores = await self.client.score_all([final_turn(c) for c in completions], queries, step)
        means = {name: sum(s.metrics[name] for s in scores) / len(scores) for name in self.client.metric_names} \
            if scores else {}
        log_scores(means, scores, log_metric, log_extra)
        return [s.reward for s in scores]

    def __getstate__(self) -> dict[str, Any]:
        c = self.client
        return {"client": (c.url, c.token_file, c.timeout_s, c.retries), "query_column": self.query_column,
                "name": self.__name__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        url, token_file, timeout_s, retries = state["client"]
        RemotePlanshapeReward.__init__(self, url, token_file, timeout_s, retries, query_column=state["query_column"],
                                       name=state["name"])

    def __repr__(self) -> str:
        return f"RemotePlanshapeReward(url={self.client.url!r}, name={self.__name__!r})"
