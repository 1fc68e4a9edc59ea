"""One ``Shaper`` per process, built from a planshape config the first time a worker needs it.

OpenRLHF runs the reward file and the agent in its vLLM actors and the advantage wrapper in the trainer actor:
separate processes on several nodes, so each builds its own from the config it is given (the thin files name
it; the setup hook reads ``PLANSHAPE_CONFIG``). Building validates the whole config, so a mistake surfaces when
the actor starts, not at the first batch.
"""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING, Any

from planshape.shaping.facade import ConfigError, Shaper, renamed

from . import CONFIG_ENV, SETUP_HOOK

RAY_SETUP_HOOK_ENV = "__RAY_WORKER_PROCESS_SETUP_HOOK_ENV_VAR"
"""Where Ray tells every worker of a job which setup hook its runtime env names (ray._private.ray_constants)."""


def runtime_env(config: str) -> dict:
    """The Ray runtime env of a planshape run: the setup hook, and the config carried to every worker."""
    return {"worker_process_setup_hook": SETUP_HOOK, "env_vars": {CONFIG_ENV: config}}


RUN_STEPS = "OpenRLHF (ceil(prompts / --rollout.batch_size) x --train.num_episodes global steps)"


@renamed(config="settings")
def run_shaper(settings: Any, run_steps: int | None = None) -> Shaper:
    """The process's ``Shaper`` for a config file path or JSON text (``Shaper.shared``: the store opens once);
    ``run_steps``: the run's global steps, where the process knows them (``global_steps``)."""
    return Shaper.shared(settings, run_steps, RUN_STEPS)


def global_steps(args: Any, prompts: int | None) -> int | None:
    """The global steps OpenRLHF will run for ``prompts`` prompts: ``ceil(prompts / rollout.batch_size)`` per
    episode. None where that is not what runs: prompts unknown, dynamic filtering (it draws extra prompts per
    step), or vLLM generating more than a rollout batch at a time."""
    rollout = args.rollout
    if not prompts or getattr(args.algo, "dynamic_filtering_enable", False):
        return None
    if (getattr(rollout, "vllm_generate_batch_size", None) or rollout.batch_size) > rollout.batch_size:
        return None
    return math.ceil(prompts / rollout.batch_size) * args.train.num_episodes


FLAG = "scores"  # the per-sample field OpenRLHF carries beside the reward: what success.flag may name


def check_success_flag(shaper: Shaper) -> None:
    """Estimator-only ``success.by='flag'`` can only read ``scores``: refused at start-up otherwise."""
    flag = shaper.success_flag
    if flag is not None and flag != FLAG:
        raise ConfigError(f"success.flag={flag!r}: OpenRLHF carries one per-sample field beside the reward, "
                          f"the reward function's {FLAG!r} (0/1 here); use success: {{by: flag, flag: {FLAG}}}")


def check_anchors(shaper: Shaper) -> None:
    """GiGPO's anchor states in OpenRLHF: only the TravelPlanner key, read from the turns' text, is available
    (the agent executor keeps one scalar ``extra_logs`` per sample, from its last step): refused at start-up
    otherwise."""
    if shaper.uses_anchors and shaper.config.anchor_key != "tool_calls":
        raise ConfigError(f"estimator {shaper.config.estimator!r} with anchor.by={shaper.config.anchor_key}: OpenRLHF "
                          "0.11 hands the trainer no per-turn state id (its agent executor keeps only the last step's "
                          "scalar extra_logs); use anchor: {by: tool_calls} (the tool calls and arguments made before "
                          "each turn, read from the turns' <tool_call> blocks)")


def check_step_rewards(shaper: Shaper) -> None:
    """Per-turn rewards in OpenRLHF come from a run's own agent (``turn_rewards``); planshape's TravelPlanner agent
    rewards the final answer only, so ``step_rewards.field`` with a database is refused at start-up."""
    if shaper.step_reward_field is not None and not shaper.estimator_only:
        raise ConfigError(f"step_rewards.field={shaper.step_reward_field!r}: planshape's TravelPlanner agent rewards "
                          "the final plan only; per-turn rewards come from an agent of your own (a config without "
                          "database, the agent's final step returning turn_reward_logs(...) in its extra_logs)")


def rollout_shaper(config: str) -> Shaper:
    """The ``Shaper`` of a rollout actor (reward file, agent). A schedule whose weights change with the step
    needs the trainer-side hook, since a rollout actor never sees the step: without it the run would stay in
    its first stage, so it is refused when the actor starts."""
    shaper = run_shaper(config)
    if shaper.staged and os.environ.get(RAY_SETUP_HOOK_ENV) != SETUP_HOOK:
        stages = shaper.describe()["stages"]
        bounds = ", ".join(f"{s['name']} from step {s['from_step']}" for s in stages)
        raise ConfigError(
            f"schedule {shaper.config.schedule!r} has {len(stages)} stages ({bounds}), but a rollout actor cannot "
            f"see the training step and this job has no planshape setup hook to rescore at it: launch with "
            f"ray job submit --runtime-env-json='{json.dumps(runtime_env('/path/planshape.json'))}' "
            f"(examples/grpo.sh), or use a one-stage schedule (stage1, stage2, stage3)")
    return shaper


def shaper_from_env(run_steps: int | None = None) -> Shaper:
    """The ``Shaper`` named by ``PLANSHAPE_CONFIG`` (``total_steps`` checked against ``run_steps``); a
    ``ConfigError`` saying how to set it when it is absent."""
    config = os.environ.get(CONFIG_ENV, "").strip()
    if not config:
        raise ConfigError(f"{CONFIG_ENV} is not set: the planshape setup hook reads the planshape config from it; "
                          f"pass --runtime-env-json='{json.dumps(runtime_env('/path/planshape.json'))}'")
    return run_shaper(config, run_steps)


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import RunShaper

    _contract: RunShaper = run_shaper
