"""The ``planshape`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console


def _store(args: argparse.Namespace, console: Console):
    """The ``--database`` sandbox, or the bundled sample world (said on the console)."""
    from planshape.validators.travelplanner import sample

    from .reward import open_store

    database = args.database or sample.sample_database()
    if args.database is None:
        console.print(f"[dim]no --database given: using the bundled sample world ({database})[/dim]")
    return open_store(str(database))


def _write_json(args: argparse.Namespace, report: dict, console: Console) -> None:
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
        console.print(f"report written to {args.json}")


def _evaluate(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner import sample
    from planshape.validators.travelplanner.query import load_queries
    from planshape.validators.travelplanner.report import evaluate_all, print_report
    from planshape.validators.travelplanner.submission import read_submission

    console = Console(stderr=False)
    plans = args.plans or sample.sample_plans()
    queries_path = args.queries or (sample.sample_queries() if args.plans is None else None)
    if queries_path is None:
        raise SystemExit("planshape evaluate: --queries is required with a plans file")
    store = _store(args, console)
    report = evaluate_all(read_submission(plans), load_queries(queries_path), store, args.mode, args.split,
                          progress=not args.no_progress)
    print_report(report, console)
    _write_json(args, report, console)
    return 0


def _schema(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner.plan_format import plan_schema

    print(json.dumps(plan_schema(), indent=2))
    return 0


def _score(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner import sample

    from . import plugins
    from .reward import Scorer
    from .rollout_file import print_rollouts, read_rollouts, score_rollouts
    from .schedules import LinearDecay

    console = Console()
    scorer = Scorer(_store(args, console), args.mode, args.schedule)
    options: dict = {}
    if args.estimator == "planpo":
        alpha = LinearDecay(args.alpha, args.alpha_final if args.alpha_final is not None else args.alpha / 2,
                            args.total_steps)
        options = {"alpha": alpha(args.step), "grouping": args.grouping}
    report = score_rollouts(read_rollouts(args.rollouts or sample.sample_dir() / "rollouts.jsonl"), scorer,
                            plugins.estimator(args.estimator), args.step, **options)
    print_rollouts(report, console)
    _write_json(args, report, console)
    return 0


def _db_build(args: argparse.Namespace) -> int:
    import time

    from planshape.validators.travelplanner.store import build_store

    start = time.perf_counter()
    counts = build_store(args.directory, args.output)
    size = Path(args.output).stat().st_size
    print(f"built {args.output} in {time.perf_counter() - start:.1f} s ({size / 1e6:.1f} MB): "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def _db_synth(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner.synthetic import write_full_size_database

    target = write_full_size_database(args.source, args.output, args.rows, args.seed)
    print(f"wrote {target} with a {args.rows}-row flights table (seed {args.seed})")
    return 0


def _plugins(args: argparse.Namespace) -> int:
    from rich.table import Table

    from . import plugins

    table = Table(title="planshape plugins", title_justify="left")
    table.add_column("plugin")
    table.add_column("hooks")
    for name, hooks in plugins.describe():
        table.add_row(name, ", ".join(hooks))
    Console().print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="planshape", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("evaluate", help="score TravelPlanner plans with the official metrics")
    ev.add_argument("plans", nargs="?", help="submission JSONL ({idx, query, plan}); default: the sample world's")
    ev.add_argument("--queries", help="queries: Hugging Face CSV/JSONL of the split")
    ev.add_argument("--database", help="TravelPlanner database directory or built store file; "
                                       "default: the bundled sample world")
    ev.add_argument("--mode", choices=("official", "strict"), default="official")
    ev.add_argument("--split", choices=("train", "validation", "test"),
                    help="use upstream's fixed hard-micro denominator for this split")
    ev.add_argument("--json", metavar="REPORT", help="write the full report (every verdict) as JSON")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.set_defaults(func=_evaluate)

    sr = sub.add_parser("score", help="rewards and advantages for a rollouts file (JSONL)")
    sr.add_argument("rollouts", nargs="?", help="rollouts JSONL; default: the sample world's")
    sr.add_argument("--database", help="TravelPlanner database directory; default: the bundled sample world")
    sr.add_argument("--mode", choices=("official", "strict"), default="strict")
    sr.add_argument("--schedule", default="stage1", help="reward schedule: stage1|stage2|stage3|curriculum-8b|...")
    sr.add_argument("--step", type=int, default=0, help="optimizer steps completed (selects stage and α)")
    sr.add_argument("--estimator", default="planpo", help="advantage estimator: planpo|grpo|<plugin>")
    sr.add_argument("--alpha", type=float, default=0.1, help="PlanPO α_init")
    sr.add_argument("--alpha-final", type=float, default=None, help="PlanPO α_final (default α_init / 2)")
    sr.add_argument("--total-steps", type=int, default=500, help="α decay horizon in steps")
    sr.add_argument("--grouping", default="index-success", choices=("index-success", "index", "task"))
    sr.add_argument("--json", metavar="REPORT", help="write every trajectory's and turn's numbers as JSON")
    sr.set_defaults(func=_score)

    db = sub.add_parser("db", help="the sandbox database: build a store, make a full-size test database")
    dbs = db.add_subparsers(dest="db_command", required=True)
    build = dbs.add_parser("build", help="build the read-only SQLite store of a database directory")
    build.add_argument("directory", help="TravelPlanner database directory (official CSV layout)")
    build.add_argument("-o", "--output", required=True, help="store file to write")
    build.set_defaults(func=_db_build)
    synth = dbs.add_parser("synth", help="copy a database directory with a synthetic full-size flights table")
    synth.add_argument("source", help="database directory to copy (its own flights come first)")
    synth.add_argument("-o", "--output", required=True, help="directory to write")
    synth.add_argument("--rows", type=int, default=3_800_000, help="flights rows (official: about 3.8 million)")
    synth.add_argument("--seed", type=int, default=0)
    synth.set_defaults(func=_db_synth)

    pl = sub.add_parser("plugins", help="list loaded plugins and the hooks each implements")
    pl.set_defaults(func=_plugins)

    sc = sub.add_parser("schema", help="print the JSON Schema of the structured plan format")
    sc.set_defaults(func=_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, OSError) as exc:
        print(f"planshape {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
