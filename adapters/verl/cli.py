"""``planshape verl ...``: prepare the parquet data and check a run's config. VERL is imported only when a
command runs, so the core CLI can build its parser without it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

from planshape.shaping.facade import add_check_command, add_command_group, add_data_command, hookimpl

from .support import SUPPORT  # noqa: F401 - the release table that `planshape plugins` reads here


def _how_to_load(written: Mapping[str, Mapping[str, Any]]) -> str:
    return f"data.train_files={written['train']['path']} data.val_files={written['val']['path']}"


@hookimpl
def planshape_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``verl`` command group to the core CLI's subparsers."""
    sub = add_command_group(subparsers, "verl", "VERL adapter: prepare data, check a run's config")
    add_data_command(sub, __package__, "TravelPlanner queries (HF CSV/JSONL) -> train/val parquet",
                     "directory for train.parquet (and val.parquet, split by --val-size)", _how_to_load,
                     "where the validation rows go (default: OUT/val.parquet)")
    add_check_command(sub, __package__, "compose a run's overrides with VERL's Hydra config and validate "
                      "them", "the Hydra overrides of the run (as given to main_ppo)", config_required=False)


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
