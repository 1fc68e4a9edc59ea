"""Time budgets for scoring: a sample that runs too long gets failure ``timeout``, never a stalled step.

Scoring is bounded by construction (size caps, linear parsers); this is the guard for what slips through
(a plugin's slow check, a pathological input nobody found yet). In-process, the budget is enforced with a
real-time timer (``SIGALRM``, on the main thread of a Unix process) that interrupts Python code; code stuck
inside one C call (a regex, a database query) is only stopped by the process pool (``scoring_pool``), which
kills the worker. Either way a sample that finishes after its budget still counts as ``timeout``, so the
reward never depends on how loaded the machine was.
"""

from __future__ import annotations

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


def run_with_budget(fn: Callable[..., Any], args: Sequence[Any], seconds: float | None) -> Any:
    """``fn(*args)``, or ``Failed(timeout)`` when it ran past ``seconds``."""
    start = time.perf_counter()
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
