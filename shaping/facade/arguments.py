"""The commands every adapter's group shares, written once: ``prepare-data QUERIES... -o OUT [--config FILE]
[--val-out FILE] [--val-size N] [--seed S] [--limit N]`` and ``check [--config FILE] [-- LAUNCH...]``, each running
the adapter's contract function (``contract.PrepareData``, ``contract.CheckLaunch``), and the data step's
``Shaper``."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from functools import partial
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..splits import PLANNER_R1_VAL_SIZE
from .shaper import Shaper

if TYPE_CHECKING:
    from .contract import CheckLaunch, PrepareData
    from .queries import Written

DATA_CONFIG = '{"database": "sample"}'
"""A data step's default config: the rows depend on the prompt alone, not on the database or the estimator."""


def add_command_group(subparsers: argparse._SubParsersAction, trainer: str, help: str) -> argparse._SubParsersAction:
    """An adapter's ``planshape <trainer> ...`` group (its commands go in what this returns; the chosen one is
    ``args.<trainer>_command``)."""
    group = subparsers.add_parser(trainer, help=help)
    return group.add_subparsers(dest=f"{trainer}_command", required=True)


def add_split_arguments(parser: argparse.ArgumentParser, out_flag: str | None = None) -> None:
    """The flags of Planner-R1's 180/45 re-split (``split_queries``), the same in every adapter's data step.
    ``out_flag``: where the validation rows go, for a data step that splits only when asked."""
    if out_flag is not None:
        parser.add_argument(out_flag, help="also split off validation rows (Planner-R1's re-split, stratified by "
                            "level) and write them here")
    parser.add_argument("--val-size", type=int, default=PLANNER_R1_VAL_SIZE,
                        help=f"validation rows, stratified by level (default {PLANNER_R1_VAL_SIZE})")
    parser.add_argument("--seed", type=int, default=0, help="the split's seed")


def add_data_arguments(parser: argparse.ArgumentParser, out_help: str, val_out_help: str | None = None) -> None:
    """The one argument shape of every adapter's ``prepare-data``: ``QUERIES... -o OUT [--config FILE]
    [--val-out FILE] [--val-size N] [--seed S] [--limit N]``."""
    parser.add_argument("queries", nargs="+", help="TravelPlanner query files (HF CSV/JSONL/JSON), merged; 'sample' "
                        "for the bundled sample world's queries")
    parser.add_argument("-o", "--out", required=True, help=out_help)
    parser.add_argument("--config", default=DATA_CONFIG, help="the run's planshape config (file or inline "
                        "YAML/JSON); the rows depend only on its prompt (default: the sample world)")
    parser.add_argument("--val-out", help=val_out_help or "also split off validation rows (Planner-R1's re-split, "
                        "stratified by level) and write them here")
    add_split_arguments(parser)
    parser.add_argument("--limit", type=int, default=None, help="keep only the first LIMIT queries")


def add_data_command(commands: argparse._SubParsersAction, adapter: str | None, help: str, out_help: str,
                     how_to_load: Callable[[Mapping[str, Written]], str],
                     val_out_help: str | None = None) -> argparse.ArgumentParser:
    """The ``prepare-data`` of the adapter package ``adapter``: its ``data.prepare_data`` (imported when the command
    runs, so the group's parser needs no trainer) on the shared arguments, then what it wrote and how the trainer
    loads it (``how_to_load``)."""
    parser = commands.add_parser("prepare-data", help=help)
    if adapter is None:
        raise ValueError("add_data_command needs the adapter package (its cli module's __package__)")
    add_data_arguments(parser, out_help, val_out_help)
    parser.set_defaults(func=partial(_prepare, adapter, how_to_load))
    return parser


def _prepare(adapter: str, how_to_load: Callable[[Mapping[str, Written]], str], args: argparse.Namespace) -> int:
    prepare: PrepareData = import_module(f"{adapter}.data").prepare_data
    written = prepare(data_shaper(args.config), args.queries, args.out, args.val_out, args.val_size, args.seed,
                      args.limit)
    print_written(written, how_to_load(written))
    return 0


def add_check_command(commands: argparse._SubParsersAction, adapter: str | None, help: str, launch_help: str,
                      config_required: bool = True, run_steps_help: str | None = None) -> argparse.ArgumentParser:
    """The ``check`` of the adapter package ``adapter``: ``[--config FILE] [--max-steps N] [--] LAUNCH...``, its
    ``check.check_launch`` (imported with the trainer when the command runs), the report printed; a trainer that is
    missing or out of range is one line and exit 2, like every other user error."""
    parser = commands.add_parser("check", help=help)
    if adapter is None:
        raise ValueError("add_check_command needs the adapter package (its cli module's __package__)")
    parser.add_argument("--config", required=config_required,
                        help="the run's planshape config (file or inline YAML/JSON)")
    if run_steps_help is not None:
        parser.add_argument("--max-steps", type=int, default=0, help=run_steps_help)
    parser.add_argument("launch", nargs=argparse.REMAINDER, help=launch_help)
    parser.set_defaults(func=partial(_check, adapter))
    return parser


def _check(adapter: str, args: argparse.Namespace) -> int:
    launch = args.launch[1:] if args.launch[:1] == ["--"] else args.launch
    steps = getattr(args, "max_steps", 0)
    try:
        check_launch: CheckLaunch = import_module(f"{adapter}.check").check_launch
        report = check_launch(launch, args.config, steps if steps > 0 else None)
    except ImportError as exc:  # the trainer is missing or out of range (UnsupportedRelease): say what to install
        raise ValueError(str(exc)) from None
    return report.emit(f"planshape {adapter.rpartition('.')[2]} check")


def print_written(written: Mapping[str, Mapping[str, Any]], load: str) -> None:
    """What a ``prepare-data`` wrote (``{split: {"path", "rows"}}``, every adapter's ``data.prepare_data``), and
    how the trainer loads it."""
    for split, info in written.items():
        print(f"{split}: {info['rows']} rows -> {info['path']}")
    print(f"load: {load}")


def data_shaper(config: Any) -> Shaper:
    """The ``Shaper`` of a data step: the run's config, validated (what only estimating needs, such as
    ``total_steps``, is not asked: prompts do not depend on it)."""
    return Shaper.from_mapping(config)
