"""``planshape openrlhf ...``: write the files OpenRLHF loads by path and its prompt dataset (``data.py``), check
a launch (``check.py``).

``files`` and ``prepare-data`` import neither OpenRLHF nor torch: they run wherever the data is prepared.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from planshape.shaping.facade import (
    Shaper,
    add_check_arguments,
    add_data_arguments,
    data_shaper,
    hookimpl,
    print_written,
)

from . import CONFIG_ENV

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


def _prepare_data(args: argparse.Namespace) -> int:
    from .data import prepare_data

    written = prepare_data(data_shaper(args.config), args.queries, args.out, args.val_out, args.val_size, args.seed)
    print_written(written, "--data.input_key prompt --data.label_key label --data.apply_chat_template")
    return 0


def _check(args: argparse.Namespace) -> int:
    try:
        from .check import check_launch  # imports OpenRLHF: only for this command
    except ImportError as exc:  # no OpenRLHF here: its parser is what checks the flags, so say what to install
        raise ValueError(str(exc)) from None

    flags = args.flags[1:] if args.flags[:1] == ["--"] else args.flags
    return check_launch(flags, args.config).emit("planshape openrlhf check")


@hookimpl
def planshape_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """The ``openrlhf`` command group of the planshape CLI."""
    group = subparsers.add_parser("openrlhf", help="OpenRLHF: the reward/agent files and the prompt dataset")
    commands = group.add_subparsers(dest="openrlhf_command", required=True)
    files = commands.add_parser("files", help="write reward_func.py, agent_func.py and planshape.json into a folder")
    files.add_argument("-o", "--out", required=True, help="a folder every node of the Ray cluster can read")
    files.add_argument("--config", required=True, help="the planshape config (JSON/YAML file), validated first")
    files.set_defaults(func=_files)
    data = commands.add_parser("prepare-data", help="TravelPlanner queries -> OpenRLHF prompt dataset (JSONL)")
    add_data_arguments(data, "the JSONL to write (--data.prompt_dataset)")
    data.set_defaults(func=_prepare_data)
    check = commands.add_parser("check", help="check a launch on the head node: OpenRLHF's own parser and "
                                "validation, what the setup hook requires, the planshape config")
    add_check_arguments(check)
    check.add_argument("flags", nargs=argparse.REMAINDER, help="-- then the flags of openrlhf.cli.train_ppo_ray")
    check.set_defaults(func=_check)
