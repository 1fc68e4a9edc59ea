"""Scoring cannot stall training: a check that sleeps, spins or kills its process costs one sample
(``timeout`` / ``crash``, reward 0), never the batch."""

from __future__ import annotations

import functools
import sys
import threading
import time

import pytest
from planshape.shaping.budget import CRASH, TIMEOUT, Failed, check_budget, run_with_budget, score_all
from planshape.shaping.scoring_pool import PoolError, ScoringPool

from tests.stall_probe import sample_rows, sample_scorer, with_word


def test_in_process_budget_stops_a_sleeping_check(stall_plugin):
    rows = sample_rows()
    score = sample_scorer()
    items = [(r["text"], r["query"], 0) for r in rows]
    items[2] = (rows[2]["text"], with_word(rows[2], "SLEEP")["query"], 0)
    start = time.perf_counter()
    results = score_all(score, items, 0.5)
    # wall clock, as the point is a timeout: the probe sleeps 60 s, so 10 s (the 0.5 s budget, the other rows'
    # scoring and 9 s of margin for a loaded machine) is still far below a sleep that was not stopped
    assert time.perf_counter() - start < 10
    assert isinstance(results[2], Failed) and results[2].kind == TIMEOUT and "budget 0.5 s" in results[2].reason
    plain = [score(*item) for i, item in enumerate(items) if i != 2]
    assert [r.reward for i, r in enumerate(results) if i != 2] == [p.reward for p in plain]
    assert "commonsense:stall_probe" in results[0].categories  # the plugin's check is among those it ran


def test_in_process_budget_also_stops_pure_python_spins():
    def spin():
        while True:
            pass

    result = run_with_budget(spin, (), 0.2)
    # wall clock (a timeout): an unstopped spin never returns, so 5 s leaves 4.8 s of margin over the budget
    assert isinstance(result, Failed) and result.kind == TIMEOUT and result.seconds < 5
    assert run_with_budget(lambda x: x + 1, (1,), 1.0) == 2
    late = run_with_budget(time.sleep, (0.05,), None)
    assert late is None  # no budget: never a timeout


def test_an_enclosing_budget_stops_code_that_runs_without_one():
    """A budget around code that itself runs ``run_with_budget`` without one (a served run of samples around the
    facade's ``score``, whose own budget the pool leaves unset): the enclosing budget reports the overrun."""
    def spin():
        while True:
            pass

    result = run_with_budget(run_with_budget, (spin, (), None), 0.2)
    assert isinstance(result, Failed) and result.kind == TIMEOUT and "budget 0.2 s" in result.reason


def test_a_callers_own_timer_survives_the_budget():
    import signal

    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(time.monotonic()))
    try:
        start = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        assert run_with_budget(time.sleep, (0.05,), 5.0) is None  # our timer comes and goes
        # The caller's timer is back and still counting from when it was set, not restarted (left + passed would
        # be 0.35 s or more) nor stretched to our 5 s. ``passed`` is read before ``left``, so however long this
        # process is descheduled between the reads, left + passed <= 0.3 s: the bound needs no margin for load
        # (5 ms for the timer's granularity).
        passed = time.monotonic() - start
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert signal.getsignal(signal.SIGALRM) is not None and 0 < left and left + passed <= 0.305
        deadline = start + 5.0  # waits for the signal; a timer left at our 5 s budget would not fire before this
        while not fired and time.monotonic() < deadline:
            time.sleep(0.01)
        # the kernel never fires early; late by up to 4.7 s only on a machine too loaded to schedule us
        assert len(fired) == 1 and 0.3 <= fired[0] - start + 0.001 < 5.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_budget_is_checked_at_start_up():
    assert check_budget(None) is None and check_budget(2) == 2.0
    for bad in (0, -1, float("nan"), float("inf"), "1", True):
        with pytest.raises(ValueError, match="sample_budget_s"):
            check_budget(bad)


def test_pool_survives_sleep_spin_and_death(stall_plugin):
    rows = sample_rows()
    items = [(r["text"], r["query"], 0) for r in rows]
    stalls = {1: "SLEEP", 4: "DIE", 5: "SPIN"}
    for i, word in stalls.items():
        items[i] = (rows[i]["text"], with_word(rows[i], word)["query"], 0)
    budget = 3.0
    started = time.perf_counter()
    with ScoringPool(functools.partial(sample_scorer, "strict"), workers=2, budget_s=budget) as pool:
        startup = time.perf_counter() - started  # what starting a worker costs on this machine, now
        first = pool.pids
        start = time.perf_counter()
        results = pool.map(items)
        took = time.perf_counter() - start
        assert len(results) == len(items)  # every sample has a result
        for i in (1, 5):  # stopped at its budget, measured from the moment it was handed out (the probe: 60 s);
            # wall clock (a timeout), never early, late by at most 2 s of scheduling on a loaded machine
            assert results[i].kind == TIMEOUT and budget <= results[i].seconds < budget + 2.0, results[i]
        assert results[4].kind == CRASH and "signal 9" in results[4].reason
        assert pool.restarts == 3 and pool.pids != first
        # The batch waits for the two budgets and for replacement workers to start, nothing else: a bound that
        # scales with the machine's load instead of a fixed one that a busy CI box can exceed.
        assert took < 2 * budget + pool.restarts * startup + 5.0, (took, startup)
        expected = [sample_scorer()(*item) for i, item in enumerate(items) if i not in stalls]
        got = [r for i, r in enumerate(results) if i not in stalls]
        assert [(r.reward, r.failure) for r in got] == [(e.reward, e.failure) for e in expected]
        assert "commonsense:stall_probe" in got[0].categories
        again = pool.map(items[:1])  # the replaced workers keep serving
        assert again[0].reward == expected[0].reward


def test_the_budget_holds_off_the_main_thread(stall_plugin):
    """Where trainers score in a thread (VERL's executor, OpenRLHF's ``asyncio.to_thread``), SIGALRM cannot
    reach: a sleeping and a spinning check still cost their budget, no more, and the others are unaffected."""
    rows = sample_rows()
    score = sample_scorer()
    items = [(r["text"], r["query"], 0) for r in rows[:4]]
    items[1] = (rows[1]["text"], with_word(rows[1], "SLEEP")["query"], 0)
    items[2] = (rows[2]["text"], with_word(rows[2], "SPIN")["query"], 0)
    out: dict[str, object] = {}
    before = set(threading.enumerate())

    def trainer_thread() -> None:
        start = time.perf_counter()
        out["results"] = score_all(score, items, 0.5)
        out["took"] = time.perf_counter() - start

    thread = threading.Thread(target=trainer_thread)
    thread.start()
    thread.join(30)
    # wall clock (a timeout): two budgets of 0.5 s at most, plus 1.5 s for the other rows and a loaded machine;
    # an unstopped check would take the probe's 60 s
    assert not thread.is_alive() and out["took"] < 2 * 0.5 + 1.5, out.get("took")
    results = out["results"]
    for i in (1, 2):
        assert results[i].kind == TIMEOUT and "budget 0.5 s" in results[i].reason
    assert [results[i].reward for i in (0, 3)] == [score(*items[i]).reward for i in (0, 3)]
    # The spinning check was stopped, not left to burn a core, and the caller's idle sample thread ends with the
    # caller; only the sleeping one is left, until its sleep returns.
    deadline = time.monotonic() + 5
    while True:
        left = [t for t in set(threading.enumerate()) - before if t.name == "planshape-sample" and t.is_alive()]
        if len(left) <= 1 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert len(left) == 1


def test_by_default_every_trainer_scores_in_process_under_a_budget():
    """The adapters' stall tests change only the budget's length (to keep the suites quick): this is the rest."""
    from planshape.shaping.config import ShapingConfig

    assert ShapingConfig.model_fields["workers"].default == 0
    assert ShapingConfig.model_fields["sample_budget_s"].default == 10.0


def test_off_the_main_thread_errors_and_results_come_back_as_on_it():
    def run() -> None:
        out["ok"] = run_with_budget(lambda x: x * 2, (21,), 1.0)
        try:
            run_with_budget(lambda: 1 / 0, (), 1.0)
        except ZeroDivisionError:
            out["raised"] = True

    out: dict[str, object] = {}
    thread = threading.Thread(target=run)
    thread.start()
    thread.join(10)
    assert out == {"ok": 42, "raised": True}


def _broken_factory():
    raise ValueError("no such database")


def test_pool_reports_a_broken_factory_at_start():
    with pytest.raises(PoolError, match="no such database"):
        ScoringPool(_broken_factory, workers=1)
    with pytest.raises(ValueError, match="workers"):
        ScoringPool(_broken_factory, workers=0)


def test_pool_raises_configuration_errors_from_the_scorer():
    with ScoringPool(functools.partial(sample_scorer, "strict"), workers=1) as pool:
        with pytest.raises(Exception, match="org|field|Query|query"):
            pool.map([("<answer>[]</answer>", {"not": "a query"}, 0)])


if sys.platform != "linux":  # pragma: no cover
    pytestmark = pytest.mark.skip("the pool tests use Linux signals")
