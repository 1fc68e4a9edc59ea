"""``planshape trl ...``: prepare a dataset, check the TRL install and a config before launching a run.

Nothing here imports TRL at module level: ``planshape`` lists this group even where TRL is not installed.
"""

from __future__ import annotations

import argparse

from planshape.shaping.facade import (
    UnsupportedRelease,
    add_check_arguments,
    add_data_arguments,
    data_shaper,
    hookimpl,
    print_written,
)


def _prepare_data(args: argparse.Namespace) -> int:
    from .data import prepare_data

    written = prepare_data(data_shaper(args.config), args.queries, args.out, args.val_out, args.val_size, args.seed,
                           args.limit)
    print_written(written, f"datasets.load_dataset('json', data_files='{args.out}')")
    return 0


def _check(args: argparse.Namespace) -> int:
    from .check import check_launch

    try:
        report = check_launch(args.config, args.max_steps)
    except UnsupportedRelease as exc:  # a user error: one line, exit 2, like the other commands
        raise ValueError(str(exc)) from None
    return report.emit("planshape trl check")


@hookimpl
def planshape_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """The ``trl`` command group."""
    group = subparsers.add_parser("trl", help="TRL GRPOTrainer adapter: dataset preparation and set-up checks")
    commands = group.add_subparsers(dest="trl_command", required=True)

    prep = commands.add_parser("prepare-data", help="TravelPlanner CSV/JSONL -> GRPOTrainer dataset rows (JSONL)")
    add_data_arguments(prep, "JSONL file to write (columns: prompt, planshape_query)")
    prep.add_argument("--limit", type=int, default=None, help="keep only the first LIMIT queries")
    prep.set_defaults(func=_prepare_data)

    check = commands.add_parser("check", help="check the installed TRL and a planshape config; show what will run")
    add_check_arguments(check)
    check.add_argument("--max-steps", type=int, default=0, help="the run's optimizer steps (PlanPO's α horizon)")
    check.set_defaults(func=_check)
