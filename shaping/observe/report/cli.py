"""``planshape report LOGDIR -o OUT`` and ``planshape evaluate --plots DIR``: figures, one HTML page, and a
terminal summary of a training run's verdict log (or of one evaluated submission)."""

from __future__ import annotations

import argparse
import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ..monitor import EXPLOIT, OFFICIAL_PASS, STRICT_PASS
from .data import LogSummary, summarise


def write_report(log_dir: str | Path, out: str | Path, progress: bool = True,
                 console: Console | None = None) -> dict[str, Path]:
    """Read the log, write ``<name>.png`` for every figure and ``report.html``; return the written paths."""
    from .figures import draw_all
    from .page import page, png_bytes

    summary = summarise(log_dir, progress=progress)
    if not len(summary.step_numbers()):
        raise ValueError(f"{log_dir}: the log has no score records")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    images: dict[str, bytes] = {}
    for name, fig in draw_all(summary).items():
        images[name] = png_bytes(fig)
        written[name] = out / f"{name}.png"
        written[name].write_bytes(images[name])
    written["html"] = out / "report.html"
    written["html"].write_text(page(f"planshape report: {log_dir}", images, facts(summary)), encoding="utf-8")
    written["metrics"] = write_metrics(summary, out / "metrics.csv")
    print_summary(summary, console or Console())
    return written


def write_metrics(summary: LogSummary, path: Path) -> Path:
    """``metrics.csv``: one row per step, one column per metric under the trainers' names (empty where the log
    cannot tell a step's value)."""
    series = summary.metrics()
    steps = sorted({k for values in series.values() for k in values})
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["step", *series])
        for k in steps:
            writer.writerow([k, *(series[name].get(k, "") for name in series)])
    return path


def facts(summary: LogSummary) -> dict[str, Any]:
    """The numbers at the top of the page and of the terminal summary."""
    steps = summary.step_numbers()
    last = summary.steps[int(steps[-1])]
    monitor = summary.monitor()
    described: dict[str, Any] = next((h["describe"] for h in summary.headers if h.get("describe")), {})
    out = {"steps": f"{int(steps[0])}–{int(steps[-1])} ({len(steps)} scored)",
           "samples": sum(s.samples for s in summary.steps.values()),
           "processes (log files)": len(summary.headers), "unreadable lines skipped": summary.skipped,
           "mode": described.get("mode", "?"), "schedule": described.get("schedule", "?"),
           "stages": ", ".join(f"{name} from {start}" for start, name in summary.stage_boundaries()),
           "last step: reward": f"{last.reward / last.samples:.3f}",
           "last step: strict pass": f"{monitor[STRICT_PASS][-1]:.1%}"}
    if not math.isnan(monitor[EXPLOIT][-1]):
        out["last step: official pass"] = f"{monitor[OFFICIAL_PASS][-1]:.1%}"
        out["last step: exploit rate"] = f"{monitor[EXPLOIT][-1]:.1%}"
        out["first step: exploit rate"] = f"{monitor[EXPLOIT][0]:.1%}"
    return out


def print_summary(summary: LogSummary, console: Console) -> None:
    table = Table(title="planshape report", title_justify="left", show_header=False)
    table.add_column("fact")
    table.add_column("value", justify="right")
    for key, value in facts(summary).items():
        table.add_row(key, str(value))
    console.print(table)
    rates = summary.check_failure()
    worst = sorted(((float(v[-1]), k) for k, v in rates.items()), reverse=True)[:5]
    console.print("most failed checks at the last step: " + ", ".join(f"{k} {r:.0%}" for r, k in worst))


def _report(args: argparse.Namespace) -> int:
    written = write_report(args.log_dir, args.output, progress=not args.no_progress)
    print(f"wrote {len(written) - 2} figures, {written['html']} and {written['metrics']}")
    return 0


def add_report_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """``planshape report LOGDIR -o OUT`` (for the ``planshape`` command's subparsers)."""
    parser = subparsers.add_parser("report", help="figures, an HTML page and a summary of a training run's "
                                                  "verdict log (needs planshape[report])")
    parser.add_argument("log_dir", help="the verdict log directory (log_dir of the planshape config)")
    parser.add_argument("-o", "--output", required=True, help="directory to write the PNG figures and report.html")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=_report)
    return parser


def add_plots_argument(parser: argparse.ArgumentParser) -> None:
    """``planshape evaluate --plots DIR``."""
    parser.add_argument("--plots", metavar="DIR", help="draw per-constraint figures of the submission into DIR "
                                                       "(needs planshape[report])")


def write_submission_plots(report: Mapping[str, Any], directory: str | Path) -> dict[str, Path]:
    """The per-constraint figures of one evaluated submission, as PNGs and one HTML page."""
    from .figures import submission_figures
    from .page import page, png_bytes

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    images = {name: png_bytes(fig) for name, fig in submission_figures(report).items()}
    written = {}
    for name, data in images.items():
        written[name] = directory / f"{name}.png"
        written[name].write_bytes(data)
    rates = report.get("metrics", {}).get("rates", {})
    written["html"] = directory / "evaluation.html"
    written["html"].write_text(page("planshape evaluate", images, {k: f"{v:.1%}" for k, v in rates.items()}),
                               encoding="utf-8")
    return written
