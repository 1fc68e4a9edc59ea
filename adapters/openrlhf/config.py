"""One ``Shaper`` per process, built from a planshape config the first time a worker needs it.

OpenRLHF runs the reward file and the agent in its vLLM actors and the advantage wrapper in the trainer actor:
separate processes on several nodes, so each builds its own from the config path it is given (the thin files
name it; the setup hook reads ``PLANSHAPE_CONFIG``). Building validates the whole config, so a mistake
surfaces when the actor starts, not at the first batch.
"""

from __future__ import annotations

import os
from functools import lru_cache

from planshape.shaping.bridge import ConfigError, Shaper

from . import CONFIG_ENV


@lru_cache(maxsize=8)
def shaper_for(config: str) -> Shaper:
    """The process's ``Shaper`` for a config file path or JSON text (cached: the store opens once)."""
    return Shaper.from_mapping(config)


def shaper_from_env() -> Shaper:
    """The ``Shaper`` named by ``PLANSHAPE_CONFIG``; a ``ConfigError`` saying how to set it when it is absent."""
    config = os.environ.get(CONFIG_ENV, "").strip()
    if not config:
        raise ConfigError(
            f"{CONFIG_ENV} is not set: the planshape setup hook needs it in the Ray runtime env, e.g. "
            f"--runtime-env-json='{{\"worker_process_setup_hook\": \"planshape.adapters.openrlhf.setup_hook.install\", "
            f"\"env_vars\": {{\"{CONFIG_ENV}\": \"/shared/planshape.yaml\"}}}}'"
        )
    return shaper_for(config)
