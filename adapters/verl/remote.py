"""VERL's ``compute_score`` scored by a ``planshape serve`` on CPU nodes instead of in the reward workers.

    reward.custom_reward_function.path=pkg://planshape.adapters.verl.remote
    +reward.custom_reward_function.reward_kwargs.server.url=http://cpu-node-0:8000
    +reward.custom_reward_function.reward_kwargs.server.token_file=/shared/planshape.token

An ``async def``, so VERL's reward loop awaits it on its event loop (no thread per sample). It returns what the
in-process ``reward.compute_score`` returns, key for key: ``score``, ``acc``, ``failure`` and every metric name
(the server's). The step is the row's (``extra_info.global_steps``, as V1 trainers set it) or the ``step``
keyword; without either the server's ``--step`` applies. Each request has a timeout and is retried; a sample the
server never answers scores 0 under ``timeout`` or ``error`` with the reason, and the run goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from planshape.shaping.facade import RewardClient

from .reward import final_turn, reward_fields, row_step

SETTINGS = ("url", "token_file", "timeout_s", "retries")


@lru_cache(maxsize=8)
def client_for(url: str, token_file: str | None = None, timeout_s: float = 60.0, retries: int = 3) -> RewardClient:
    """The process's client of one server (its connections are kept between calls)."""
    return RewardClient(url, token_file, float(timeout_s), int(retries))


def _client(server: Any) -> RewardClient:
    if not isinstance(server, Mapping) or "url" not in server:
        raise ValueError("compute_score needs the server: add "
                         "+reward.custom_reward_function.reward_kwargs.server.url=http://HOST:PORT "
                         "(and server.token_file=FILE when the server has a token)")
    unknown = sorted(set(server) - set(SETTINGS))
    if unknown:
        raise ValueError(f"unknown reward_kwargs.server setting(s) {unknown}; known: {list(SETTINGS)}")
    return client_for(**{k: server[k] for k in SETTINGS if k in server})


async def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Mapping | None = None,
                        server: Any = None, step: int | None = None, **verl_kwargs: Any) -> dict[str, Any]:
    """VERL's ``compute_score`` contract, scored remotely (keyword call, extra keys ignored)."""
    client = _client(server)
    if step is None:
        step = row_step(extra_info)
    scored = await client.score(final_turn(solution_str), ground_truth, step)
    return reward_fields(scored.reward, scored.success, scored.failure, scored.metrics)
