"""One ``Shaper`` per process, built from a planshape config the first time a worker needs it.

OpenRLHF runs the reward file and the agent in its vLLM actors and the advantage wrapper in the trainer actor:
separate processes on several nodes, so each builds its own from the config it is given (the thin files name
it; the setup hook reads ``PLANSHAPE_CONFIG``). Building validates the whole config, so a mistake surfaces when
the actor starts, not at the first batch.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

from planshape.shaping.bridge import ConfigError, Shaper

from . import CONFIG_ENV, SETUP_HOOK

RAY_SETUP_HOOK_ENV = "__RAY_WORKER_PROCESS_SETUP_HOOK_ENV_VAR"
"""Where Ray tells every worker of a job which setup hook its runtime env names (ray._private.ray_constants)."""


def runtime_env(config: str) -> dict:
    """The Ray runtime env of a planshape run: the setup hook, and the config carried to every worker."""
    return {"worker_process_setup_hook": SETUP_HOOK, "env_vars": {CONFIG_ENV: config}}


@lru_cache(maxsize=8)
def shaper_for(config: str) -> Shaper:
    """The process's ``Shaper`` for a config file path or JSON text (cached: the store opens once)."""
    return Shaper.from_mapping(config)


def rollout_shaper(config: str) -> Shaper:
    """The ``Shaper`` of a rollout actor (reward file, agent). A schedule whose weights change with the step
    needs the trainer-side hook, since a rollout actor never sees the step: without it the run would stay in
    its first stage, so it is refused when the actor starts."""
    shaper = shaper_for(config)
    stages = shaper.describe()["stages"]
    if len(stages) > 1 and os.environ.get(RAY_SETUP_HOOK_ENV) != SETUP_HOOK:
        bounds = ", ".join(f"{s['name']} from step {s['from_step']}" for s in stages)
        raise ConfigError(
            f"schedule {shaper.config.schedule!r} has {len(stages)} stages ({bounds}), but a rollout actor cannot "
            f"see the training step and this job has no planshape setup hook to rescore at it: launch with "
            f"ray job submit --runtime-env-json='{json.dumps(runtime_env('/path/planshape.json'))}' "
            f"(examples/grpo.sh), or use a one-stage schedule (stage1, stage2, stage3)")
    return shaper


def shaper_from_env() -> Shaper:
    """The ``Shaper`` named by ``PLANSHAPE_CONFIG``; a ``ConfigError`` saying how to set it when it is absent."""
    config = os.environ.get(CONFIG_ENV, "").strip()
    if not config:
        raise ConfigError(f"{CONFIG_ENV} is not set: the planshape setup hook reads the planshape config from it; "
                          f"pass --runtime-env-json='{json.dumps(runtime_env('/path/planshape.json'))}'")
    return shaper_for(config)
