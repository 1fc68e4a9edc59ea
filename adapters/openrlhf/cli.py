"""``planshape openrlhf ...``: write the files OpenRLHF loads by path and its prompt dataset (``data.py``), check
a launch (``check.py``).

``files`` and ``prepare-data`` import neither OpenRLHF nor torch: they run wherever the data is prepared.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from planshape.shaping.facade import Shaper, add_check_command, add_command_group, add_data_command, hookimpl

from . import CONFIG_ENV
from .support import SUPPORT  # noqa: F401 - the release table that `planshape plugins` reads here

EXAMPLES = Path(__file__).resolve().parent / "examples"
FILES = ("reward_func.py", "agent_func.py")
CONFIG_NAME = "planshape.json"


def write_files(out: Path, config: str) -> list[Path]:
    """Validate ``config``, then write the thin reward and agent files and the config (as JSON) into ``out``."""
    shaper = Shaper.from_mapping(config)
    out.mkdir(parents=True, exist_ok=True)
    written = [Path(shutil.copyfile(EXAMPLES / name, out / name)) for name in FILES]
    target = out / CONFIG_NAME
    target.write_text(json.dumps(shaper.config.model_dump(mode="json"), indent=2) + "\n")
    return [*written, target]


def _files(args: argparse.Namespace) -> int:
    for path in write_files(Path(args.out), args.config):
        print(path)
    print(f"OpenRLHF: --reward.remote_url {Path(args.out) / FILES[0]}  or  --train.agent_func_path "
          f"{Path(args.out) / FILES[1]}; the setup hook reads {CONFIG_ENV}={Path(args.out) / CONFIG_NAME}")
    return 0


@hookimpl
def planshape_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """The ``openrlhf`` command group of the planshape CLI."""
    commands = add_command_group(subparsers, "openrlhf", "OpenRLHF: the reward/agent files and the prompt dataset")
    files = commands.add_parser("files", help="write reward_func.py, agent_func.py and planshape.json into a folder")
    files.add_argument("-o", "--out", required=True, help="a folder every node of the Ray cluster can read")
    files.add_argument("--config", required=True, help="the planshape config (JSON/YAML file), validated first")
    files.set_defaults(func=_files)
    add_data_command(commands, __package__, "TravelPlanner queries -> OpenRLHF prompt dataset (JSONL)",
                     "the JSONL to write (--data.prompt_dataset)",
                     lambda _: "--data.input_key prompt --data.label_key label --data.apply_chat_template",
                     "also split off validation rows (Planner-R1's re-split) and write them here (--eval.dataset)")
    add_check_command(commands, __package__, "check a launch on the head node: OpenRLHF's own parser "
                      "and validation, what the setup hook requires, the planshape config",
                      "-- then the flags of openrlhf.cli.train_ppo_ray")
