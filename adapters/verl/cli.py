"""``planshape verl ...``: prepare the parquet data and check a run's config. VERL is imported only when a
command runs, so the core CLI can build its parser without it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planshape.shaping.facade import add_data_arguments, data_shaper, hookimpl, print_written


def _prepare(args: argparse.Namespace) -> int:
    from .data import prepare_data

    shaper = data_shaper(args.config)
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise ValueError(f"prepare-data writes parquet with pandas and pyarrow ({exc}); both come with verl: "
                         "pip install 'verl[verl-core]==0.9.1'") from None
    written = prepare_data(shaper, args.queries, args.out, args.val_size, args.seed)
    print_written(written, f"data.train_files={Path(args.out) / 'train.parquet'} "
                           f"data.val_files={Path(args.out) / 'val.parquet'}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from planshape.shaping.facade import UnsupportedRelease

    from .check import check_launch

    try:
        report = check_launch(args.overrides)
    except UnsupportedRelease as exc:  # a user error: one line, exit 2, like the other commands
        raise ValueError(str(exc)) from None
    return report.emit("planshape verl check")


@hookimpl
def planshape_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``verl`` command group to the core CLI's subparsers."""
    verl = subparsers.add_parser("verl", help="VERL adapter: prepare data, check a run's config")
    sub = verl.add_subparsers(dest="verl_command", required=True)

    prep = sub.add_parser("prepare-data", help="TravelPlanner queries (HF CSV/JSONL) -> train/val parquet")
    add_data_arguments(prep, "directory for train.parquet and val.parquet (split by --val-size)", val_out=False)
    prep.set_defaults(func=_prepare)

    chk = sub.add_parser("check", help="compose a run's overrides with VERL's Hydra config and validate them")
    chk.add_argument("overrides", nargs="*", help="the Hydra overrides of the run (as given to main_ppo)")
    chk.set_defaults(func=_check)


def main(argv: list[str] | None = None) -> int:
    """``python -m planshape.adapters.verl.cli ...``: the same commands without the core CLI."""
    parser = argparse.ArgumentParser(prog="planshape")
    planshape_add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, OSError) as exc:
        print(f"planshape verl {args.verl_command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
