"""Time budgets for scoring: a sample that runs too long gets failure ``timeout``, never a stalled step.

Scoring is bounded by construction (size caps, linear parsers); this is the guard for what slips through
(a plugin's slow check, a pathological input nobody found yet). In-process, the budget holds on any thread,
because trainers score off the main thread too (VERL's reward loop in an executor, OpenRLHF's agent in
``asyncio.to_thread``), where ``SIGALRM`` cannot reach:

* on the main thread of a Unix process, a real-time timer (``SIGALRM``) interrupts Python code and sleeps;
* on any other thread, the sample runs in a sample thread kept for that caller, and the caller waits at most
  the budget: past it the caller gets ``timeout`` at once, and the sample thread is sent ``Overrun`` (which
  stops Python code at its next instruction; a sleep or other blocking C call is left to finish in the
  background, its result discarded) and replaced for the caller's next sample.

Code stuck inside one C call that holds the GIL (a regex) is only stopped by the process pool
(``scoring_pool``), which kills the worker. Either way a sample that finishes after its budget still counts as
``timeout``, so the reward never depends on how loaded the machine was.
"""

from __future__ import annotations

import ctypes
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

TIMEOUT = "timeout"  # the sample ran past its time budget
CRASH = "crash"  # the process scoring the sample died


@dataclass(frozen=True)
class Failed:
    """A sample that produced no score: ``kind`` is ``timeout`` or ``crash``; ``seconds`` how long it ran."""

    kind: str
    reason: str
    seconds: float


class Overrun(BaseException):
    """Raised by the timer inside scoring code; a ``BaseException`` so that ``except Exception`` in a checker
    or plugin cannot swallow it."""


def check_budget(seconds: float | None) -> float | None:
    """A budget from configuration: None (no budget) or a positive, finite number of seconds."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or seconds <= 0:
        raise ValueError(f"sample_budget_s must be a positive number of seconds or null, got {seconds!r}")
    return float(seconds)


def timer_available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``Overrun`` in this block after ``seconds`` (no-op without a budget or off the main thread)."""
    if seconds is None or not timer_available():
        yield
        return

    def _overrun(signum: int, frame: Any) -> None:
        raise Overrun()

    previous = signal.signal(signal.SIGALRM, _overrun)
    start = time.monotonic()
    outer, interval = signal.setitimer(signal.ITIMER_REAL, seconds)  # a caller's own timer, restored below
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer > 0:  # give the caller's timer back its remaining time (at least a tick: it may be due now)
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-6), interval)


def _interrupt(thread: threading.Thread) -> None:
    """Raise ``Overrun`` in ``thread`` at its next Python instruction (CPython's asynchronous exception)."""
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(Overrun))


class _SampleThread(threading.Thread):
    """The thread a caller's samples run in, one per calling thread, kept between samples (a thread-local
    database connection is opened once). Abandoned past a budget: it gets ``Overrun`` and ends; the caller's
    next sample starts a fresh one."""

    def __init__(self) -> None:
        super().__init__(name="planshape-sample", daemon=True)
        self.lock = threading.Lock()  # held by whoever decides a sample's fate: its result, or abandonment
        self.ready = threading.Event()
        self.done = threading.Event()
        self.task: tuple[Callable[..., Any], Sequence[Any]] | None = None
        self.outcome: tuple[bool, Any] | None = None
        self.abandoned = False
        self.caller = threading.current_thread()
        self.start()

    def run(self) -> None:
        try:
            while True:
                while not self.ready.wait(1.0):
                    if not self.caller.is_alive():  # the caller is gone: nobody will hand this thread a sample
                        return
                self.ready.clear()
                fn, args = self.task  # type: ignore[misc]
                try:
                    result: tuple[bool, Any] = (True, fn(*args))
                except Overrun:
                    return
                except BaseException as exc:  # noqa: BLE001 - handed to the caller, which re-raises it
                    result = (False, exc)
                with self.lock:
                    if self.abandoned:
                        return
                    self.outcome = result
                    self.done.set()
        except Overrun:  # arrived after the sample's own code: the caller has moved on, and so does this thread
            return

    def submit(self, fn: Callable[..., Any], args: Sequence[Any], seconds: float) -> tuple[bool, Any]:
        """(finished, result) of ``fn(*args)`` within ``seconds``; past it the thread is abandoned."""
        self.outcome = None
        self.done.clear()
        self.task = (fn, args)
        self.ready.set()
        self.done.wait(seconds)
        with self.lock:
            if self.outcome is None:
                self.abandoned = True
                _interrupt(self)
                return False, None
        ok, value = self.outcome
        if not ok:
            raise value
        return True, value


_callers = threading.local()


def _run_watched(fn: Callable[..., Any], args: Sequence[Any], seconds: float) -> tuple[bool, Any]:
    """``fn(*args)`` in this caller's sample thread, waited for at most ``seconds``: (finished, result); an
    exception ``fn`` raised is re-raised here. Past the budget the thread is sent ``Overrun`` and left behind."""
    worker = getattr(_callers, "worker", None)
    if worker is None or worker.abandoned or not worker.is_alive():
        worker = _callers.worker = _SampleThread()
    return worker.submit(fn, args, seconds)


def run_with_budget(fn: Callable[..., Any], args: Sequence[Any], seconds: float | None) -> Any:
    """``fn(*args)``, or ``Failed(timeout)`` when it ran past ``seconds`` (on any thread)."""
    start = time.perf_counter()
    if seconds is not None and not timer_available():
        finished, result = _run_watched(fn, args, seconds)
        if not finished:
            elapsed = time.perf_counter() - start
            return Failed(TIMEOUT, f"scoring stopped after {elapsed:.3g} s (budget {seconds:g} s)", elapsed)
    elif seconds is None:  # no budget of its own: an enclosing budget's ``Overrun`` goes on to that budget
        result = fn(*args)
    else:
        try:
            with time_limit(seconds):
                result = fn(*args)
        except Overrun:
            elapsed = time.perf_counter() - start
            return Failed(TIMEOUT, f"scoring stopped after {elapsed:.3g} s (budget {seconds:g} s)", elapsed)
    elapsed = time.perf_counter() - start
    if seconds is not None and elapsed > seconds:
        return Failed(TIMEOUT, f"scoring took {elapsed:.3g} s (budget {seconds:g} s)", elapsed)
    return result


def score_all(fn: Callable[..., Any], items: Sequence[Sequence[Any]], seconds: float | None) -> list[Any]:
    """In-process batch: one result or ``Failed`` per item, in order; an overrun does not touch the others."""
    return [run_with_budget(fn, item, seconds) for item in items]
