"""``planshape trl ...``: prepare a dataset, check the TRL install and a config before launching a run.

Nothing here imports TRL at module level: ``planshape`` lists this group even where TRL is not installed.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from planshape.shaping.facade import add_check_command, add_command_group, add_data_command, hookimpl

from .support import SUPPORT  # noqa: F401 - the release table that `planshape plugins` reads here


def _how_to_load(written: Mapping[str, Mapping[str, Any]]) -> str:
    return f"datasets.load_dataset('json', data_files='{written['train']['path']}')"


@hookimpl
def planshape_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """The ``trl`` command group."""
    commands = add_command_group(subparsers, "trl", "TRL GRPOTrainer adapter: dataset preparation and set-up checks")
    add_data_command(commands, __package__, "TravelPlanner CSV/JSONL -> GRPOTrainer dataset rows (JSONL)",
                     "JSONL file to write (columns: prompt, planshape_query)", _how_to_load)
    add_check_command(commands, __package__, "check the installed TRL and a planshape config; show what "
                      "will run", "-- then the run's GRPOConfig flags (--max_steps, --scale_rewards, ...), read by "
                      "TRL's own parser", run_steps_help="the run's optimizer steps (PlanPO's α horizon), when no "
                      "--max_steps follows --")
