"""The ``planshape`` command."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from . import plugins
from .audit import add_audit_parser
from .explain import add_explain_parser
from .observe.report.cli import add_plots_argument, add_report_parser
from .rollout.cli import add_parsers as add_rollout_parsers
from .serve.cli import add_parser as add_serve_parser
from .solver_cli import add_parsers as add_solver_parsers


def _store(args: argparse.Namespace, console: Console):
    """The ``--database`` sandbox, or the bundled sample world (said on the console)."""
    from planshape.validators.travelplanner import sample
    from planshape.validators.travelplanner.store.sqlite import open_store

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
    from planshape.validators.travelplanner.evaluation.report import evaluate_all, print_report
    from planshape.validators.travelplanner.evaluation.submission import read_submission
    from planshape.validators.travelplanner.query import load_queries

    console = Console(stderr=False)
    plans = args.plans or sample.sample_plans()
    queries_path = args.queries or (sample.sample_queries() if args.plans is None else None)
    if queries_path is None:
        raise SystemExit("planshape evaluate: --queries is required with a plans file")
    mode = _mode_with_conventions(args.mode, args.conventions)
    store = _store(args, console)
    report = evaluate_all(read_submission(plans, plugins.extract_answer), load_queries(queries_path), store,
                          mode, args.split, progress=not args.no_progress, checks=plugins.checks())
    print_report(report, console)
    _write_json(args, report, console)
    if args.plots:
        from .observe.report.cli import write_submission_plots

        written = write_submission_plots(report, args.plots)
        console.print(f"figures written to {args.plots}: {', '.join(p.name for p in written.values())}")
    return 0


def _mode_with_conventions(name: str, source: str | None) -> Any:
    """The mode to evaluate in: strict with the conventions a file or inline JSON/YAML gives (a config's
    ``conventions`` section, docs/modes.md), else the named mode."""
    from planshape.validators.travelplanner.checks.conventions import Conventions
    from planshape.validators.travelplanner.checks.modes import get_mode
    from pydantic import ValidationError

    from .config import ConfigError, as_mapping

    if source is None:
        return name
    if name != "strict":
        raise SystemExit("planshape evaluate: --conventions sets strict mode's bounds; add --mode strict")
    try:
        conventions = Conventions.model_validate(as_mapping(source))
    except ConfigError as exc:
        raise SystemExit(f"planshape evaluate: --conventions: {exc}") from None
    except ValidationError as exc:
        why = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'conventions'}: {e['msg']}" for e in exc.errors())
        raise SystemExit(f"planshape evaluate: --conventions: {why}") from None
    return get_mode(name, conventions)


def _schema(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner.plan.formats import plan_schema

    print(json.dumps(plan_schema(), indent=2))
    return 0


def _score(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner import sample

    from .facade import Shaper
    from .rollout_file import print_rollouts, read_rollouts, score_rollouts

    console = Console()
    settings = _score_settings(args)
    if "database" not in settings:
        console.print("[dim]no --database given: using the bundled sample world[/dim]")
        settings["database"] = "sample"
    shaper = Shaper.from_mapping(settings)
    report = score_rollouts(read_rollouts(args.rollouts or sample.sample_dir() / "rollouts.jsonl"), shaper, args.step)
    print_rollouts(report, console)
    _write_json(args, report, console)
    return 0


def _score_settings(args: argparse.Namespace) -> dict:
    """The ``--config`` file's settings, with the flags given on the command line on top."""
    from .config import as_mapping

    settings = dict(as_mapping(Path(args.config))) if args.config else {}
    flags = {"database": args.database, "mode": args.mode, "schedule": args.schedule, "estimator": args.estimator,
             "total_steps": args.total_steps}
    settings.update({k: v for k, v in flags.items() if v is not None})
    alpha = {"init": args.alpha, "final": args.alpha_final}
    if any(v is not None for v in alpha.values()):
        settings["alpha"] = {**settings.get("alpha", {}), **{k: v for k, v in alpha.items() if v is not None}}
    if args.grouping is not None:
        settings["estimator_options"] = {**settings.get("estimator_options", {}), "grouping": args.grouping}
    settings.setdefault("total_steps", 500)
    return settings


def _db_build(args: argparse.Namespace) -> int:
    import time

    from planshape.validators.travelplanner.store.sqlite import build_store
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    start = time.perf_counter()
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True, disable=args.no_progress) as bar:
        task = bar.add_task("reading the database")

        def shown(what: str, rows: int) -> None:
            bar.update(task, description="building indexes" if what == "indexes" else f"{what}: {rows:,} rows")

        counts = build_store(args.directory, args.output, progress=shown)
    size = Path(args.output).stat().st_size
    print(f"built {args.output} in {time.perf_counter() - start:.1f} s ({size / 1e6:.1f} MB): "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def _db_synth(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner.store.synthetic import write_full_size_database

    target = write_full_size_database(args.source, args.output, args.rows, args.seed)
    print(f"wrote {target} with a {args.rows}-row flights table (seed {args.seed})")
    return 0


def _plugins(args: argparse.Namespace) -> int:
    from rich.table import Table

    table = Table(title="planshape plugins", title_justify="left")
    table.add_column("plugin")
    table.add_column("version")
    table.add_column("hooks")
    versions = plugins.versions()
    for name, hooks in plugins.describe():
        table.add_row(name, versions[name], ", ".join(hooks))
    Console().print(table)
    Console().print(_adapters_table())
    return 0


def _adapters_table() -> Any:
    """The trainer adapters: each one's supported range (its support table) against what is installed here."""
    from rich.table import Table

    from .facade.releases import UnsupportedRelease, supports

    table = Table(title="trainer adapters (adapters/<trainer>/support.py)", title_justify="left")
    for column in ("adapter", "supports", "installed", "this release lacks"):
        table.add_column(column)
    for name, support in supports().items():
        found = support.installed()
        try:
            lacks = [what for (what, ok, _) in support.rows(found) if not ok] if found else []
            state = found or "not installed"
        except UnsupportedRelease:
            lacks, state = [], f"{found} (outside the range)"
        table.add_row(name, support.range, state, "; ".join(lacks) or "-")
    return table


def _config_schema(args: argparse.Namespace) -> int:
    from .config import ShapingConfig

    print(json.dumps(ShapingConfig.model_json_schema(), indent=2))
    return 0


def _config_check(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .facade import Shaper

    shaper = Shaper.from_mapping(Path(args.file))
    info = shaper.describe()
    console = Console()
    console.print(f"{args.file}: valid planshape config", soft_wrap=True)
    table = Table(show_header=False)
    for key in ("database", "mode", "schedule", "estimator", "estimator_options", "alpha", "success", "anchor",
                "per_turn_rewards", "step_convention", "prompt_version"):
        if key in info and not (key == "anchor" and info[key] is None):  # estimator-only: no mode, schedule, prompt
            table.add_row(key, str(info[key]))
    for stage in info.get("stages", []):
        until = "end" if stage["until_step"] is None else str(stage["until_step"])
        weights = ", ".join(f"{k}={v:g}" for k, v in stage["weights"].items())
        table.add_row(f"  {stage['name']}", f"steps [{stage['from_step']}, {until}): {weights}")
    console.print(table)
    for field, why in shaper.config.estimator_problems().items():  # scoring alone needs none of it
        console.print(f"to estimate advantages, set {field} ({why}); a trainer that knows the run's length fills "
                      "total_steps in (VERL's planshape trainer, TRL's max_steps, OpenRLHF's launch)" if field ==
                      "total_steps" else f"to estimate advantages: {field}: {why}", soft_wrap=True)
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
    ev.add_argument("--conventions", metavar="FILE_OR_TEXT",
                    help="strict's conventions (meal and sight windows, least minutes, airport times; docs/modes.md): "
                         "a JSON/YAML file or inline text of a config's `conventions` section")
    ev.add_argument("--split", choices=("train", "validation", "test"),
                    help="use upstream's fixed hard-micro denominator for this split")
    ev.add_argument("--json", metavar="REPORT", help="write the full report (every verdict) as JSON")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_plots_argument(ev)
    ev.set_defaults(func=_evaluate)

    from .advantages.estimators import GROUPINGS

    sr = sub.add_parser("score", help="rewards and advantages for a rollouts file (JSONL)")
    sr.add_argument("rollouts", nargs="?", help="rollouts JSONL; default: the sample world's")
    sr.add_argument("--config", help="a planshape config (JSON/YAML, see `planshape config schema`); flags override it")
    sr.add_argument("--database", help="TravelPlanner database directory; default: the bundled sample world")
    sr.add_argument("--mode", choices=("official", "strict"), help="default: strict")
    sr.add_argument("--schedule", help="reward schedule: stage1 (default)|stage2|stage3|curriculum-8b|...")
    sr.add_argument("--step", type=int, default=0, help="optimizer steps completed (selects stage and α)")
    sr.add_argument("--estimator", help="advantage estimator: planpo (default)|grpo|rloo|<plugin> (gigpo needs "
                    "per-turn anchor states, which rollout files do not carry)")
    sr.add_argument("--alpha", type=float, help="PlanPO α_init (default 0.1)")
    sr.add_argument("--alpha-final", type=float, help="PlanPO α_final (default 0.05)")
    sr.add_argument("--total-steps", type=int, help="the run's optimizer steps: the α decay horizon (default 500)")
    sr.add_argument("--grouping", choices=GROUPINGS, help="PlanPO turn grouping")
    sr.add_argument("--json", metavar="REPORT", help="write every trajectory's and turn's numbers as JSON")
    sr.set_defaults(func=_score)

    db = sub.add_parser("db", help="the sandbox database: build a store, make a full-size test database")
    dbs = db.add_subparsers(dest="db_command", required=True)
    build = dbs.add_parser("build", help="build the read-only SQLite store of a database directory")
    build.add_argument("directory", help="TravelPlanner database directory (official CSV layout)")
    build.add_argument("-o", "--output", required=True, help="store file to write")
    build.add_argument("--no-progress", action="store_true", help="no progress display (rows per table, elapsed)")
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

    cf = sub.add_parser("config", help="planshape settings: their JSON Schema, or check a file before a run")
    cfs = cf.add_subparsers(dest="config_command", required=True)
    cfs.add_parser("schema", help="print the JSON Schema of a planshape config").set_defaults(func=_config_schema)
    check = cfs.add_parser("check", help="validate a planshape config file (JSON/YAML) and show what will run")
    check.add_argument("file")
    check.set_defaults(func=_config_check)

    add_explain_parser(sub)
    add_audit_parser(sub)
    add_report_parser(sub)
    add_rollout_parsers(sub)
    add_serve_parser(sub)
    add_solver_parsers(sub)
    from . import plugins

    plugins.plugin_manager().hook.planshape_add_commands(subparsers=sub)  # each adapter's group (``planshape verl``)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, OSError, sqlite3.Error) as exc:  # user errors: one clear line, no traceback
        print(f"planshape {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
