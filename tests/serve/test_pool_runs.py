"""The pool's budget over a run of samples (one job scoring several, as a batch's share of one worker): it holds
for each sample from that sample's own start, read from the clock the worker shares with the pool, so a run of
samples each within the budget is never stopped however long the run, and a sample stuck where no signal reaches
it is stopped about one budget after it started, not one budget per sample of its run."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from typing import Any

import pytest
from planshape.shaping.budget import TIMEOUT, Failed
from planshape.shaping.serve.pool import RUN_GRACE_TICKS, AsyncPool

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the pool's workers use Linux signals")

BUDGET_S = 1.0


class RunHandler:
    """A job handler of runs: each item sleeps that many seconds (``"hang"``: where no signal reaches it)."""

    sample_clock: Any = None

    def __call__(self, kind: str, items: list[Any]) -> tuple[str, list[Any]]:
        done = []
        for item in items:
            if self.sample_clock is not None:
                self.sample_clock.value = time.monotonic()
            if item == "hang":
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                time.sleep(60)
            time.sleep(item)
            done.append(item)
        return "rows", done


def run_handler() -> RunHandler:
    return RunHandler()


async def _run(items: list[Any]) -> tuple[Any, float, int]:
    pool = AsyncPool(run_handler, 1, BUDGET_S)
    await pool.start()
    try:
        start = time.monotonic()
        result = await pool.run("samples", items)
        return result, time.monotonic() - start, pool.restarts
    finally:
        pool.close()


def test_a_run_longer_than_the_budget_is_not_stopped_while_each_sample_keeps_within_it():
    items = [0.4] * 6  # 2.4 s in all, each sample 0.4 s of a 1 s budget
    result, took, restarts = asyncio.run(_run(items))
    assert result == ("rows", items) and restarts == 0
    assert took >= 2.4


def test_a_stuck_sample_of_a_run_is_stopped_one_budget_after_it_started():
    pool_tick = min(0.25, max(0.01, BUDGET_S / 8))
    result, took, restarts = asyncio.run(_run([0.5, 0.5, "hang", *[0.1] * 7]))
    assert isinstance(result, Failed) and result.kind == TIMEOUT and restarts == 1
    assert "budget 1 s" in result.reason
    # it started 1 s into the run; stopped past its budget and the grace, at the next tick: wall clock, as the
    # point is when it was stopped (one budget per sample of the run would be 10 s; 60 s, never)
    assert 1.0 + BUDGET_S <= took < 1.0 + BUDGET_S + (RUN_GRACE_TICKS + 1) * pool_tick + 2.0, took
