"""``planshape solve`` and ``planshape synth``: witness plans for queries, and new queries with their witnesses
(the solver: ``planshape.validators.travelplanner.solver``, docs/solver.md). Both need the ``solver`` extra."""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

SOLVER_MISSING = "the solver needs OR-Tools: pip install 'planshape[solver]'"


def _require_solver() -> None:
    try:
        import ortools  # noqa: F401
    except ImportError:
        raise ValueError(SOLVER_MISSING) from None


def progress_bar(what: str, total: int, enabled: bool, console: Console) -> Progress:
    """A bar over ``total`` items, with a status line the caller updates (solved / infeasible so far)."""
    return Progress(TextColumn(f"{what} [progress.description]{{task.description}}"), BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(), console=console,
                    transient=True, disable=not enabled)


def _store(database: str | None, console: Console):
    from planshape.validators.travelplanner import sample
    from planshape.validators.travelplanner.store.sqlite import open_store

    if database is None:
        console.print(f"[dim]no --database given: using the bundled sample world ({sample.sample_database()})[/dim]")
        return open_store(str(sample.sample_database()))
    return open_store(database)


def summary_table(title: str, lines: list[dict[str, Any]]) -> Table:
    """Solved / infeasible by reason / unknown / refused, each with its count, share and time per query."""
    table = Table(title=title, title_justify="left")
    for column in ("outcome", "queries", "share", "median s", "max s", "median CPU s"):
        table.add_column(column, justify="left" if column == "outcome" else "right")
    groups: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        key = line["status"] if line["status"] != "infeasible" else f"infeasible: {line['code']}"
        groups.setdefault(key, []).append(line)
    order = sorted(groups, key=lambda k: (k != "solved", not k.startswith("infeasible"), k))
    for key in [*order, "all"]:
        rows = lines if key == "all" else groups[key]
        if not rows:
            continue
        wall = [r["seconds"] for r in rows]
        cpu = [r["cpu_seconds"] for r in rows]
        table.add_row(key, str(len(rows)), f"{len(rows) / len(lines):.1%}", f"{statistics.median(wall):.3f}",
                      f"{max(wall):.3f}", f"{statistics.median(cpu):.3f}", end_section=key == order[-1])
    return table


def _count(lines: Iterable[dict[str, Any]]) -> str:
    counts = Counter("solved" if line["status"] == "solved" else "infeasible" if line["status"] == "infeasible"
                     else "other" for line in lines)
    return f"{counts['solved']} solved, {counts['infeasible']} infeasible" + \
        (f", {counts['other']} other" if counts["other"] else "")


def _write_jsonl(path: str | Path, lines: Iterable[dict[str, Any]]) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            count += 1
    return count


def _solve(args: argparse.Namespace) -> int:
    _require_solver()
    from planshape.validators.travelplanner.query import read_query_rows
    from planshape.validators.travelplanner.solver.batch import solution_line, solve_all

    console = Console()
    store = _store(args.database, console)
    rows = read_query_rows(args.queries)[: args.limit]
    queries = [query for _, query in rows]
    lines: list[dict[str, Any]] = []
    with progress_bar("solving", len(queries), not args.no_progress, console) as bar:
        task = bar.add_task("", total=len(queries))
        for i, solution in enumerate(solve_all(queries, store, args.jobs, not args.no_budget, args.time_limit,
                                               args.objective)):
            lines.append(solution_line(i, queries[i], solution))
            bar.update(task, advance=1, description=_count(lines))
    _write_jsonl(args.output, lines)
    console.print(summary_table(f"planshape solve ({len(lines)} queries)", lines))
    database = "" if args.database is None else f" --database {args.database}"  # the line must score what was solved
    console.print(f"solutions written to {args.output} (`planshape evaluate {args.output} --queries {args.queries}"
                  f"{database} --mode strict` scores them)", soft_wrap=True)
    if args.sft:
        _report_sft(console, args.sft, *write_sft(args.sft, [r for r, _ in rows], [line["answer"] for line in lines],
                                                  store, args.max_chars))
    refused = [line for line in lines if line["status"] == "refused"]
    for line in refused:
        console.print(f"[red]query {line['idx']}: the strict checks refuse the witness (a bug): "
                      f"{'; '.join(line['failures'][:3])}[/red]", soft_wrap=True)
    return 1 if refused else 0


def write_sft(path: str | Path, records: list[dict[str, Any]], answers: list[Any], store: Any,
              max_chars: int) -> tuple[int, int]:
    """The SFT examples of the witnesses (``None``: no witness); ``(written, left out)``: a witness naming a place
    its tool answer does not show (cut at ``max_chars``) is left out."""
    from planshape.validators.travelplanner.agent.demonstration import Unshown, demonstration

    examples, unshown = [], 0
    for record, answer in zip(records, answers, strict=True):
        if answer is None:
            continue
        try:
            examples.append(demonstration(record, answer, store, max_chars))
        except Unshown:
            unshown += 1
    return _write_jsonl(path, examples), unshown


def _synth(args: argparse.Namespace) -> int:
    _require_solver()
    import time

    from planshape.validators.travelplanner.synth.generate import parse_mix, synthesize

    console = Console()
    if args.n < 1:
        raise ValueError("--n must be at least 1")
    if not 0 <= args.slack <= 10:
        raise ValueError("--slack is a share of the witness's cost, between 0 and 10 (0.1: 10 % above it)")
    mix = parse_mix(args.mix)
    store = _store(args.database, console)
    started, attempts = time.perf_counter(), [0]
    with progress_bar("synthesizing", args.n, not args.no_progress, console) as bar:
        task = bar.add_task("", total=args.n)

        def shown(kept: Any, tallies: dict[str, Any]) -> None:
            attempts[0] += 1
            done = sum(t.kept for t in tallies.values())
            bar.update(task, completed=done, description=f"{done} kept of {attempts[0]} drawn")

        kept, tallies = synthesize(store, args.n, mix, args.seed, args.slack, args.jobs, shown, args.objective)
    records = [k.record for k in kept]
    write_queries(args.output, records)
    elapsed = time.perf_counter() - started
    console.print(synth_table(tallies, kept))
    console.print(f"{len(records)} queries written to {args.output} in {elapsed:.1f} s (seed {args.seed}, budget = "
                  f"the cheapest plan's cost + {args.slack:.0%}, rounded up to hundreds)", soft_wrap=True)
    if args.sft:
        _report_sft(console, args.sft, *write_sft(args.sft, records, [k.answer for k in kept], store,
                                                  args.max_chars))
    return 0


def synth_table(tallies: dict[str, Any], kept: list[Any]) -> Table:
    """Per level: kept (by trip length), drawn, why the others were dropped (the flight drawn starts no trip of the
    length drawn; the query repeats a kept one; the solver proved no plan), the median solver CPU time."""
    table = Table(title="planshape synth", title_justify="left")
    for column in ("level", "kept", "3/5/7 d", "drawn", "no trip", "repeat", "no plan", "CPU s"):
        table.add_column(column, justify="left" if column == "level" else "right")
    for level, tally in tallies.items():
        days = Counter(k.record["days"] for k in kept if k.record["level"] == level)
        cpu = f"{statistics.median(tally.cpu_seconds):.3f}" if tally.cpu_seconds else "-"
        dropped = str(sum(tally.infeasible.values()))
        table.add_row(level, str(tally.kept), "/".join(str(days[d]) for d in (3, 5, 7)), str(tally.attempts),
                      str(tally.no_trip), str(tally.duplicate), dropped, cpu)
    return table


def write_queries(path: str | Path, records: list[dict[str, Any]]) -> None:
    """JSONL (one record a line), or a CSV in the Hugging Face layout (structured cells as Python literals)."""
    path = Path(path)
    if path.suffix != ".csv":
        _write_jsonl(path, records)
        return
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(records[0]) if records else []
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        for record in records:
            writer.writerow({k: repr(v) if isinstance(v, (list, dict)) else v for k, v in record.items()})


def _report_sft(console: Console, path: str, written: int, unshown: int) -> None:
    left = f" ({unshown} left out: a place of the witness is cut from its tool answer; raise --max-chars)" \
        if unshown else ""
    console.print(f"{written} SFT examples written to {path}{left}", soft_wrap=True)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """``planshape solve`` and ``planshape synth``."""
    so = sub.add_parser("solve", help="a witness plan that passes every strict check for each query, or why none "
                                      "exists (CP-SAT; needs the solver extra)")
    so.add_argument("queries", help="queries: Hugging Face CSV/JSONL (train.csv, a validation file, a synth output)")
    so.add_argument("--database", help="TravelPlanner database directory or built store; default: the sample world")
    so.add_argument("-o", "--output", default="solutions.jsonl",
                    help="solutions JSONL, one line per query: status, reason, cost, plan (upstream day dicts), "
                         "answer (the structured format), seconds (default: solutions.jsonl)")
    so.add_argument("--no-budget", action="store_true", help="ignore the queries' budgets (the cheapest plan)")
    so.add_argument("--jobs", type=int, default=1, help="processes (each solve uses one core; default 1)")
    so.add_argument("--objective", choices=("cost", "rich"), default="cost",
                    help="cost: the cheapest plan (default); rich: as many travel-day meals and sights as the days "
                         "fit, then the cheapest")
    so.add_argument("--time-limit", type=float, default=60.0,
                    help="solver time per query before 'unknown', in CP-SAT's deterministic seconds (about a "
                         "second of one core each; the wall clock would make results depend on the load), default 60")
    so.add_argument("--limit", type=int, help="only the first N queries")
    so.add_argument("--sft", metavar="FILE", help="also write each witness as an SFT chat example (JSONL)")
    so.add_argument("--max-chars", type=int, default=8192, help="tool responses in SFT examples are cut at this "
                                                                "(the rollouts' max_tool_response_length, 8192)")
    so.add_argument("--no-progress", action="store_true", help="no progress bar")
    so.set_defaults(func=_solve)

    sy = sub.add_parser("synth", help="new TravelPlanner queries drawn from the database, each kept only with a "
                                      "witness plan from the solver (needs the solver extra)")
    sy.add_argument("--n", type=int, default=100, help="how many queries (default 100)")
    sy.add_argument("--mix", default="easy=0.34,medium=0.33,hard=0.33",
                    help="difficulty mix, LEVEL=SHARE,... (default easy=0.34,medium=0.33,hard=0.33)")
    sy.add_argument("--database", help="TravelPlanner database directory or built store; default: the sample world")
    sy.add_argument("-o", "--output", default="synth.jsonl",
                    help="queries file: .jsonl, or .csv in the Hugging Face layout (default: synth.jsonl)")
    sy.add_argument("--seed", type=int, default=0, help="the same seed gives the same file (default 0)")
    sy.add_argument("--slack", type=float, default=0.1,
                    help="budget = the cheapest plan's cost x (1 + slack), rounded up to hundreds (default 0.1)")
    sy.add_argument("--jobs", type=int, default=1, help="processes (each solve uses one core; default 1)")
    sy.add_argument("--objective", choices=("cost", "rich"), default="cost",
                    help="the witnesses: cost (the cheapest plans, default) or rich (full days, then the cheapest)")
    sy.add_argument("--sft", metavar="FILE", help="also write each witness as an SFT chat example (JSONL)")
    sy.add_argument("--max-chars", type=int, default=8192, help="tool responses in SFT examples are cut at this")
    sy.add_argument("--no-progress", action="store_true", help="no progress bar")
    sy.set_defaults(func=_synth)
