"""Settings shared by the fuzz properties: ~1,000 examples each by default, more with PLANSHAPE_FUZZ_EXAMPLES."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("PLANSHAPE_FUZZ_EXAMPLES", "1000"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """(result, CPU seconds of this thread) of one call: the work done, whatever else loads the machine.

    The garbage collector is paused meanwhile: a full collection of the test process's millions of objects
    (the loaded database) is the process's cost, not the call's."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.thread_time()
        result = fn()
        return result, time.thread_time() - start
    finally:
        if enabled:
            gc.enable()


class Scanned(str):
    """A text that counts the characters its ``find`` and ``rfind`` calls look at: the cost of a scanning
    parser, counted exactly (a parser that rescans shows it at any size, whatever the machine's load)."""

    looked = 0

    def find(self, sub: str, start: int | None = None, end: int | None = None) -> int:  # type: ignore[override]
        found = super().find(sub, start, end)
        low, high, _ = slice(start, end).indices(len(self))
        self.looked += (found + len(sub) if found >= 0 else high) - low
        return found

    def rfind(self, sub: str, start: int | None = None, end: int | None = None) -> int:  # type: ignore[override]
        found = super().rfind(sub, start, end)
        low, high, _ = slice(start, end).indices(len(self))
        self.looked += high - (found if found >= 0 else low)
        return found
