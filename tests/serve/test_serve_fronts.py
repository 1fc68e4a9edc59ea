"""Several front processes on one port (``--fronts``): each serves with its own share of the workers, every
sample scores as the facade whichever front took its connection, ``/metrics`` counts all of them from any front,
and the default number of fronts follows ``WORKERS_PER_FRONT``."""

from __future__ import annotations

import asyncio
import os
import re
import time

import aiohttp
import pytest
from planshape.shaping.serve.fronts import WORKERS_PER_FRONT, front_count, split

from tests.serve.server import Server, get


def test_the_default_and_the_limits():
    assert front_count(1, None) == 1
    assert front_count(WORKERS_PER_FRONT * 2, None) == min(2, os.cpu_count() or 1)
    assert front_count(WORKERS_PER_FRONT * 64, None) == os.cpu_count()  # at most one per core
    assert split(7, 3) == [3, 2, 2]
    with pytest.raises(ValueError, match="more than --workers"):
        front_count(2, 3)
    with pytest.raises(ValueError, match="--fronts must be a whole number"):
        front_count(2, 0)


async def _fire(url: str, payloads: list[dict]) -> list[tuple[int, dict]]:
    """Every payload on a connection of its own (the kernel hands each to one of the fronts)."""
    async def one(payload: dict) -> tuple[int, dict]:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as session:
            async with session.post(url, json=payload) as reply:
                return reply.status, await reply.json()

    return await asyncio.gather(*(one(p) for p in payloads))


def test_two_fronts_share_the_port_and_the_load(gold, shaper, tmp_path):
    srv = Server(gold.config, tmp_path / "srv", "--workers", "2", "--fronts", "2", "--step", "0")
    try:
        payloads = [{"query": [gold.query(i)], "prompts": [gold.prompts[i]], "labels": [gold.labels[i]]}
                    for i in range(45)]
        replies = asyncio.run(_fire(srv.url + "/get_reward", payloads))
        want = [s.reward for s in shaper.score_batch(gold.answers, gold.labels, 0)]
        assert [status for status, _ in replies] == [200] * 45
        assert [reply["rewards"][0] for _, reply in replies] == want
        fronts: set[int] = set()
        deadline = time.monotonic() + 60  # the second front starts after the first answers /health: on a loaded
        while fronts != {0, 1} and time.monotonic() < deadline:  # machine it may still be importing
            fronts.add(get(srv.url + "/health")[1]["front"])
        assert fronts == {0, 1}, fronts  # new connections reach both fronts
        assert all(get(srv.url + "/health")[1]["fronts"] == 2 for _ in range(3))
        metrics = get(srv.url + "/metrics")[1]
        text = metrics if isinstance(metrics, str) else metrics.decode()
        counted = sum(float(v) for v in re.findall(r'^planshape_samples_total\{format="openrlhf"\} (\S+)$', text,
                                                     re.M))
        assert counted == 45  # both fronts' samples, from whichever front answered
    finally:
        srv.stop()
