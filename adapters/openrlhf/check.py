"""A preflight for a launch: ``planshape openrlhf check --config FILE -- <train_ppo_ray flags>``.

OpenRLHF builds its argument parser inside ``train_ppo_ray``'s ``__main__`` block, so the check runs that block
itself (argparse, ``hierarchize`` and every validation assert OpenRLHF makes) and stops where ``train`` would
start Ray. Then it applies what the setup hook will demand in the trainer, and validates the planshape config:
every mistake surfaces on the head node before a 16-GPU job is scheduled.

Where a launch is prepared, OpenRLHF's GPU-only packages (vLLM, DeepSpeed) are often not installed, and its
launcher imports them before parsing. There the check still checks what it can (the planshape config, the
database, the reward and agent files the flags name) and says what it could not.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from unittest import mock

from planshape.shaping.facade import ConfigError, Report, check_shaper

from .advantages import check_trainer_args
from .config import check_anchors, check_success_flag, global_steps, run_shaper


class _Parsed(Exception):
    def __init__(self, args: Any) -> None:
        super().__init__("parsed")
        self.parsed = args


def _stop(args: Any) -> None:
    raise _Parsed(args)


class MissingPackage(Exception):
    """OpenRLHF's launcher imports a package this machine lacks (``name``), so its parser cannot run here."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def parse_launch(argv: Sequence[str]) -> Any:
    """OpenRLHF's own parsing and validation of ``python -m openrlhf.cli.train_ppo_ray ARGV``: the hierarchical
    args; ``ConfigError`` with OpenRLHF's message when it rejects them."""
    import openrlhf.utils
    import ray

    with mock.patch.object(ray, "is_initialized", lambda: True), \
            mock.patch.object(openrlhf.utils, "get_strategy", _stop), \
            mock.patch.object(sys, "argv", ["train_ppo_ray", *argv]):
        try:
            runpy.run_module("openrlhf.cli.train_ppo_ray", run_name="__main__")
        except _Parsed as parsed:
            return parsed.parsed
        except AssertionError as exc:
            raise ConfigError(f"OpenRLHF rejects the flags: {exc}") from None
        except SystemExit:
            raise ConfigError("OpenRLHF's argument parser rejects the flags (its message is above)") from None
        except ModuleNotFoundError as exc:
            raise MissingPackage(exc.name or str(exc)) from None
    raise ConfigError("train_ppo_ray returned without reaching train()")


def local_prompts(args: Any) -> int | None:
    """The prompts of a launch whose ``--data.prompt_dataset`` is one local JSONL file (as ``prepare-data``
    writes), capped by ``--data.max_samples``; None for anything else (a hub dataset, a blend)."""
    path = Path(str(args.data.prompt_dataset))
    if path.suffix != ".jsonl" or not path.is_file():
        return None
    with path.open("rb") as handle:
        rows = sum(1 for line in handle if line.strip())
    return min(rows, int(args.data.max_samples))


FILE_FLAGS = ("--reward.remote_url", "--train.agent_func_path")

TEXT_FLAGS: dict[str, dict[str, Any]] = {
    "--algo.advantage.estimator": {"default": "gae"},
    "--rollout.n_samples_per_prompt": {"type": int, "default": 1},
    "--algo.kl.init_coef": {"type": float, "default": 0.01},
    "--algo.kl.use_loss": {"action": "store_true"},
    "--reward.normalize_enable": {"action": "store_true"},
    "--reward.clip_range": {"type": float, "nargs": 2, "default": (-10.0, 10.0)},
}
"""The flags the setup hook checks (``advantages.check_trainer_args``), with OpenRLHF's defaults as its parser
(``train_ppo_ray``) sets them in 0.10.2-0.11.x."""


def text_args(argv: Sequence[str]) -> Any:
    """The ``TEXT_FLAGS`` of a launch read as text (no OpenRLHF needed), as OpenRLHF's hierarchical args."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    for flag, options in TEXT_FLAGS.items():
        parser.add_argument(flag, dest=flag.removeprefix("--"), **options)
    try:
        flat, _ = parser.parse_known_args(list(argv))
    except (argparse.ArgumentError, SystemExit):
        raise ConfigError(f"cannot read {', '.join(TEXT_FLAGS)} from the flags (a value missing or of the wrong "
                          "type)") from None
    tree: dict[str, Any] = {}
    for dotted, value in vars(flat).items():
        node = tree
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return json.loads(json.dumps(tree), object_hook=lambda d: SimpleNamespace(**d))


def flag_values(argv: Sequence[str], flag: str) -> list[str]:
    """The values given to ``flag`` (``--flag A B`` or ``--flag=A``), for when OpenRLHF's parser cannot run."""
    values: list[str] = []
    for i, arg in enumerate(argv):
        if arg.startswith(flag + "="):
            values.append(arg.split("=", 1)[1])
        elif arg == flag:
            values.extend(a for a in _until_next_flag(argv[i + 1:]))
    return values


def _until_next_flag(rest: Sequence[str]) -> list[str]:
    out = []
    for arg in rest:
        if arg.startswith("--"):
            break
        out.append(arg)
    return out


def check_launch(launch: Sequence[str] = (), config: Any = None, run_steps: int | None = None) -> Report:
    """Everything planshape and OpenRLHF would refuse at start-up, checked now, and what will run: ``launch`` the
    ``train_ppo_ray`` flags, ``config`` the planshape config the setup hook reads (``PLANSHAPE_CONFIG``),
    ``run_steps`` the run's global steps where the flags do not fix them (a hub dataset)."""
    if config is None:
        raise ValueError("planshape openrlhf check needs the planshape config (--config FILE)")
    argv = list(launch)
    report = Report()
    args = None
    try:
        args = parse_launch(argv)
    except MissingPackage as missing:
        report.unchecked.append(
            f"OpenRLHF's own parsing and validation of the flags and total_steps against the launch's global steps: "
            f"OpenRLHF's launcher imports {missing.name!r}, which is not installed here; run the check again where "
            "it is (a GPU node) to cover them (the flags the setup hook requires were read as text)")
        try:
            check_trainer_args(text_args(argv))
        except ConfigError as exc:
            report.errors.append(str(exc))
    except ConfigError as exc:
        report.errors.append(str(exc))
    if args is not None:
        try:
            check_trainer_args(args)
        except ConfigError as exc:
            report.errors.append(str(exc))
        run_steps = global_steps(args, local_prompts(args)) or run_steps
        if run_steps is None:
            report.unchecked.append("total_steps against the launch's global steps: the prompt dataset is not one "
                                    "local JSONL file, or dynamic filtering / --rollout.vllm_generate_batch_size "
                                    "changes the steps per episode (the setup hook checks it when training starts)")
        agent, rewards = args.train.agent_func_path, list(args.reward.remote_url or [])
        report.lines.append(f"n_samples_per_prompt: {args.rollout.n_samples_per_prompt}")
        report.lines.append(f"estimator_flag: {args.algo.advantage.estimator}")
    else:
        agents = flag_values(argv, FILE_FLAGS[1])
        agent, rewards = (agents[-1] if agents else None), flag_values(argv, FILE_FLAGS[0])
    _files(agent, rewards, report)
    try:
        shaper = run_shaper(config, run_steps)  # what the setup hook will build
        shaper.require_estimator("the planshape setup hook")
        check_success_flag(shaper)
        check_anchors(shaper)
    except ConfigError as exc:
        report.errors.append(f"planshape config {config}: {exc}")
        return report
    check_shaper(shaper, report)
    return report


def _files(agent: str | None, rewards: list[str], report: Report) -> None:
    """planshape's reward runs only through the files a launch names: at least one, and they exist."""
    files = [p for p in (agent, *rewards) if p and str(p).endswith(".py")]
    if not files:
        named = ", ".join(rewards) or "neither"
        report.errors.append(f"the launch names no planshape reward ({named}): pass --reward.remote_url "
                             "DIR/reward_func.py or --train.agent_func_path DIR/agent_func.py, written by `planshape "
                             "openrlhf files -o DIR --config FILE`")
    missing = [p for p in files if not Path(p).is_file()]
    if missing:
        report.errors.append(f"no such file: {', '.join(missing)} (write them with `planshape openrlhf files -o DIR "
                             "--config FILE`)")
    report.lines.append(f"openrlhf: {'agent' if agent else 'reward file'}")
    report.lines.append(f"files: {files}")


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import CheckLaunch

    _contract: CheckLaunch = check_launch
