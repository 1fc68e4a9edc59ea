"""What every adapter's ``check`` command reports, and the checks they share.

A preflight exists to save GPU hours: a launch it passes must not fail on configuration. So each problem is an
error naming what to fix, the command exits non-zero on any error, and what could not be checked on this
machine (a GPU-only package missing, a dataset on a hub) is said, never passed over in silence.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shaper import Shaper


@dataclass
class Report:
    """What will run (``lines``), what looks wrong but may be intended (``warnings``), what must be fixed
    (``errors``), and what this machine could not check (``unchecked``)."""

    lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    def emit(self, command: str) -> int:
        """Print the report (what runs on stdout, the rest on stderr); 0 when there is no error, else 2."""
        for line in self.lines:
            print(line)
        for warning in self.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        for what in self.unchecked:
            print(f"not checked here: {what}", file=sys.stderr)
        for error in self.errors:
            print(f"{command}: error: {error}", file=sys.stderr)
        if self.errors:
            print(f"{command}: {len(self.errors)} problem(s) to fix before launching", file=sys.stderr)
            return 2
        print("ok: nothing to fix" + (" in what could be checked here" if self.unchecked else ""))
        return 0


def check_database(shaper: Shaper, report: Report) -> None:
    """The sandbox opens here as it will in every worker, and each of its tables holds rows (estimator-only
    configs have none to open)."""
    if shaper.estimator_only:
        report.lines.append("database: none (estimator-only: the run's own reward)")
        return
    try:
        counts = shaper.scorer.store.counts()
    except (ValueError, OSError) as exc:
        report.errors.append(f"database {shaper.config.database_path}: {exc}")
        return
    empty = sorted(table for table, rows in counts.items() if rows == 0)
    if empty:
        report.errors.append(f"database {shaper.config.database_path}: table(s) {', '.join(empty)} hold no rows: point "
                             "database at the full TravelPlanner database directory (official CSV layout)")
    else:
        report.lines.append("database rows: " + ", ".join(f"{t} {n}" for t, n in sorted(counts.items())))


def check_shaper(shaper: Shaper, report: Report, prefix: str = "") -> None:
    """The database checked (``check_database``), then what the shaper will run, one line per setting."""
    check_database(shaper, report)
    report.lines.extend(f"{prefix}{key}: {value}" for key, value in shaper.describe().items())
