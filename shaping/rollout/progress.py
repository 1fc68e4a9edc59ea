"""The live line of a rollout: trajectories done, pass rate so far, generated tokens per second, failures."""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class LiveProgress:
    def __init__(self, total: int, enabled: bool, console: Console):
        self.passed = self.scored = self.failed = self.tokens = 0
        self.start = time.perf_counter()
        self._bar = Progress(TextColumn("rollout"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), console=console,
                             disable=not enabled, transient=True)
        self._task = self._bar.add_task("rollout", total=total, stats="")

    def __enter__(self) -> LiveProgress:
        self._bar.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self._bar.__exit__(kind, value, tb)

    def done(self, record: dict[str, Any]) -> None:
        """Count one finished trajectory."""
        self.tokens += record["completion_tokens"]
        self.failed += record["status"] == "error"
        if record["score"] is not None:
            self.scored += 1
            self.passed += bool(record["score"]["success"])
        self._bar.update(self._task, advance=1, stats=self.line())

    def line(self) -> str:
        rate = f"pass {100 * self.passed / self.scored:.1f}%" if self.scored else "unscored"
        speed = self.tokens / max(time.perf_counter() - self.start, 1e-9)
        return f"{rate}  {speed:,.0f} tok/s  {self.failed} failed"
