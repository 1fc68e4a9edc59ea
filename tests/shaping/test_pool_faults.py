"""A dead scoring worker costs at most the samples it held, never the run: killed with SIGKILL while idle
(between batches) or while busy (mid-batch), it is replaced, the samples it held score ``crash`` with a reason,
nothing raises, and every later batch scores as in process."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest
from planshape.shaping import Shaper
from planshape.shaping.components import CRASH
from planshape.shaping.facade import gold_answer, query_json

from tests.stall_probe import sample_rows, stall_plugin, with_word  # noqa: F401 - a fixture

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the fault tests use Linux signals")


@pytest.fixture(scope="module")
def gold(shared_dir, train_records):
    """The 45 train queries' gold answers with their labels, and their in-process scores at step 0."""
    config = {"database": str(shared_dir / "database"), "estimator": "grpo", "total_steps": 10}
    texts = [gold_answer(r) for r in train_records]
    labels = [query_json(r) for r in train_records]
    expected = Shaper.from_mapping(config).score_batch(texts, labels, 0)
    assert {(s.reward, s.failure) for s in expected} == {(5.0, "")}
    return config, texts, labels, expected


def _same(got, expected) -> bool:
    return (got.reward, got.success, got.failure, got.components) == \
        (expected.reward, expected.success, expected.failure, expected.components)


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


def test_idle_workers_killed_between_batches_are_replaced(gold):
    config, texts, labels, expected = gold
    shaper = Shaper.from_mapping({**config, "workers": 2})
    try:
        assert all(map(_same, shaper.score_batch(texts, labels, 0), expected))
        first = shaper.pool.pids
        _kill(first[0])  # one idle worker
        time.sleep(0.2)
        scores = shaper.score_batch(texts, labels, 0)  # raised BrokenPipeError before the fix
        assert len(scores) == len(texts) and all(map(_same, scores, expected))
        assert shaper.pool.restarts == 1 and first[0] not in shaper.pool.pids
        for pid in shaper.pool.pids:  # every worker at once
            _kill(pid)
        time.sleep(0.2)
        scores = shaper.score_batch(texts, labels, 0)
        assert all(map(_same, scores, expected)) and shaper.pool.restarts == 3
    finally:
        shaper.close()


@pytest.mark.usefixtures("stall_plugin")
def test_a_busy_worker_killed_mid_batch_costs_only_its_sample():
    """A worker held on one sample (the stall probe's SLEEP) is killed from outside: that sample is ``crash``
    with the signal in its reason, every other sample of the batch is scored, and the next batch is whole."""
    rows = sample_rows()
    texts = [r["text"] for r in rows]
    queries = [r["query"] for r in rows]
    held = 2
    queries[held] = with_word(rows[held], "SLEEP")["query"]
    config = {"database": "sample", "estimator": "grpo", "total_steps": 10, "sample_budget_s": 60.0}
    plain = Shaper.from_mapping(config)
    expected = [plain.score(t, q, 0) for i, (t, q) in enumerate(zip(texts, queries, strict=True)) if i != held]
    shaper = Shaper.from_mapping({**config, "workers": 2})
    try:
        killed: list[int] = []

        assert shaper.pool.pids  # started: the batch below begins at once

        def kill_the_sleeper() -> None:
            """Wait until one worker has held one sample for a second (the others are done), then kill it."""
            seen, since = None, time.monotonic()
            while time.monotonic() - since < 1.0 or seen is None:
                busy = shaper.pool.busy_pids
                now = busy[0] if len(busy) == 1 else None
                if now != seen:
                    seen, since = now, time.monotonic()
                time.sleep(0.05)
            killed.append(seen)
            _kill(seen)

        killer = threading.Thread(target=kill_the_sleeper)
        killer.start()
        start = time.monotonic()
        scores = shaper.score_batch(texts, queries, 0)
        killer.join()
        assert time.monotonic() - start < 30  # the 60 s sleep was cut short by the kill, not by the budget
        assert len(killed) == 1 and len(scores) == len(texts)
        assert scores[held].failure == CRASH and "signal 9" in scores[held].reason and scores[held].reward == 0
        assert all(map(_same, [s for i, s in enumerate(scores) if i != held], expected))
        again = shaper.score_batch(texts[:held] + texts[held + 1:], queries[:held] + queries[held + 1:], 0)
        assert all(map(_same, again, expected)) and killed[0] not in shaper.pool.pids
    finally:
        shaper.close()


def test_workers_killed_at_random_under_load_lose_nothing(gold):
    """Kills at random moments of a long batch (busy or idle, whichever each worker is): one result per
    sample, each the in-process score or a ``crash`` (never more crashes than kills), and later batches whole."""
    config, texts, labels, expected = gold
    texts, labels, expected = texts * 6, labels * 6, expected * 6  # 270 samples
    shaper = Shaper.from_mapping({**config, "workers": 2})
    try:
        shaper.score_batch(texts[:2], labels[:2], 0)  # started
        kills: list[int] = []
        stop = threading.Event()

        def killer() -> None:
            while not stop.wait(0.15) and len(kills) < 6:
                pids = shaper.pool.pids
                if pids:
                    pid = pids[len(kills) % len(pids)]
                    try:
                        _kill(pid)
                        kills.append(pid)
                    except ProcessLookupError:  # already replaced
                        pass

        thread = threading.Thread(target=killer)
        thread.start()
        scores = shaper.score_batch(texts, labels, 0)
        stop.set()
        thread.join()
        assert len(scores) == len(texts) and kills
        crashed = [s for s in scores if s.failure == CRASH]
        assert len(crashed) <= len(kills) and all("signal 9" in s.reason for s in crashed)
        assert all(_same(s, e) for s, e in zip(scores, expected, strict=True) if s.failure != CRASH)
        time.sleep(0.2)
        assert all(map(_same, shaper.score_batch(texts[:45], labels[:45], 0), expected[:45]))
    finally:
        shaper.close()
