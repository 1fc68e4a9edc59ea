"""A preflight for a launch: ``planshape openrlhf check --config FILE -- <train_ppo_ray flags>``.

OpenRLHF builds its argument parser inside ``train_ppo_ray``'s ``__main__`` block, so the check runs that block
itself (argparse, ``hierarchize`` and every validation assert OpenRLHF makes) and stops where ``train`` would
start Ray. Then it applies what the setup hook will demand in the trainer, and validates the planshape config:
every mistake surfaces on the head node before a 16-GPU job is scheduled.
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest import mock

from planshape.shaping.facade import ConfigError

from .advantages import check_trainer_args
from .config import check_success_flag, global_steps, shaper_for


class _Parsed(Exception):
    def __init__(self, args: Any) -> None:
        super().__init__("parsed")
        self.parsed = args


def _stop(args: Any) -> None:
    raise _Parsed(args)


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


def check_launch(argv: Sequence[str], config: str) -> dict[str, Any]:
    """Everything planshape and OpenRLHF would refuse at start-up, checked now; what will run, when nothing is."""
    args = parse_launch(argv)
    check_trainer_args(args)
    shaper = shaper_for(config, global_steps(args, local_prompts(args)))  # what the setup hook will build
    check_success_flag(shaper)
    files = [p for p in (args.train.agent_func_path, *(args.reward.remote_url or [])) if p and p.endswith(".py")]
    missing = [p for p in files if not Path(p).is_file()]
    if missing:
        raise ConfigError(f"no such file: {', '.join(missing)} (write them with `planshape openrlhf files`)")
    mode = "agent" if args.train.agent_func_path else "reward file"
    return {"openrlhf": mode, "files": files, "n_samples_per_prompt": args.rollout.n_samples_per_prompt,
            "estimator_flag": args.algo.advantage.estimator, **shaper.describe()}
