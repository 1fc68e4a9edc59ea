"""Evaluate a whole submission: a progress bar while checking, a metrics table, a JSON report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import track
from rich.table import Table

from ..checks.modes import Mode, get_mode
from ..checks.registry import COMMONSENSE, HARD, Check
from ..checks.verdicts import PlanResult, check_plan
from ..query import Query
from ..store.sandbox import SandboxStore
from .metrics import METRIC_LABELS, breakdown, compute_metrics, per_constraint
from .submission import Submitted

CITATION = "TravelPlanner (Xie et al., ICML 2024, arXiv 2402.01622), data CC-BY-4.0"


def evaluate_all(
    submitted: Sequence[Submitted],
    queries: Sequence[Query],
    store: SandboxStore,
    mode: str | Mode = "official",
    split: str | None = None,
    progress: bool = True,
    checks: tuple[Sequence[Check], Sequence[Check]] = (COMMONSENSE, HARD),
) -> dict[str, Any]:
    """Check every plan and assemble the report (metrics, breakdowns, every verdict with its reason).
    ``checks``: the (commonsense, hard) checks to run, the benchmark's by default (a caller with plugins passes
    theirs, so that a submission is judged as the reward judges it)."""
    if len(submitted) != len(queries):
        raise ValueError(f"{len(submitted)} plans but {len(queries)} queries; the files must pair line by line")
    resolved = get_mode(mode)  # a Mode keeps strict's conventions (``get_mode(name, conventions)``)
    mode_name = resolved.name
    items = list(zip(submitted, queries, strict=True))
    results: list[PlanResult] = []
    steps = track(items, description=f"checking ({mode_name})", transient=True) if progress else items
    for sub, query in steps:
        result = check_plan(sub.plan, query, store, resolved, *checks)
        if sub.note and (not result.delivered or not result.note):  # why it was not delivered beats "no plan"
            result.note = sub.note
        results.append(result)
    return {
        "mode": mode_name,
        "split": split,
        "database": getattr(store, "source", "?"),
        "metrics": compute_metrics(queries, results, split),
        "breakdown": breakdown(queries, results),
        "per_constraint": per_constraint(results),
        "plans": [{"idx": i, **r.to_dict()} for i, r in enumerate(results)],
        "unreadable_lines": [{"idx": i, "reason": sub.note} for i, sub in enumerate(submitted) if sub.unreadable],
        "citation": CITATION,
    }


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    """Readable tables: the six metrics, per-constraint counts, per level × trip length."""
    console = console or Console()
    m = report["metrics"]
    table = Table(title=f"TravelPlanner metrics — mode: {report['mode']}", title_justify="left")
    table.add_column("metric")
    table.add_column("rate", justify="right")
    table.add_column("count", justify="right")
    for key, label in METRIC_LABELS.items():
        table.add_row(label, f"{100 * m['rates'][key]:.1f}%", f"{m['numerators'][key]}/{m['denominators'][key]}")
    console.print(table)

    labels = {c.key: c.label for c in (*COMMONSENSE, *HARD)}
    checks = Table(title="per constraint", title_justify="left")
    for col in ("constraint", "pass", "fail", "n/a", "not checked"):
        checks.add_column(col, justify="left" if col == "constraint" else "right")
    for key, c in report["per_constraint"].items():
        checks.add_row(labels.get(key, key), *(str(c[s]) for s in ("pass", "fail", "n/a", "not checked")))
    console.print(checks)

    groups = Table(title="per level × trip length", title_justify="left")
    for col in ("level", "days", "plans", "delivered", "commonsense", "hard", "final"):
        groups.add_column(col, justify="right")
    for row in report["breakdown"]:
        groups.add_row(row["level"], str(row["days"]), str(row["plans"]), str(row["delivered"]),
                       str(row["commonsense_pass"]), str(row["hard_pass"]), str(row["final_pass"]))
    console.print(groups)
    unreadable = report.get("unreadable_lines", [])
    if unreadable:
        console.print(f"[bold red]{len(unreadable)} line(s) could not be read as submission lines[/bold red] "
                      "(counted as not delivered):", highlight=False)
        for line in unreadable:
            console.print(f"  {line['reason']}", highlight=False, markup=False)
    console.print(f"mode: [bold]{report['mode']}[/bold]   database: {escape(str(report['database']))}   data: "
                  f"{CITATION}")
