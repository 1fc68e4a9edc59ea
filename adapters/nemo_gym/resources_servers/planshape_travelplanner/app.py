"""NeMo Gym's entrypoint for the TravelPlanner resources server: ``planshape serve`` on this instance's host and
port, with the settings of its config block (``configs/planshape_travelplanner.yaml``):

* ``planshape``: the planshape config (``database``, ``mode``, ``schedule``, ...), as in every trainer's config;
* ``workers``, ``step``, ``max_turns``, ``fronts``: ``planshape serve``'s flags of those names;
* ``token_file`` and ``allow``: for a host other than loopback (``use_absolute_ip``), the token or the networks
  of the run's nodes (NeMo Gym's agents send no token: ``allow`` is what they need).

NeMo Gym hands an instance its whole config in ``NEMO_GYM_CONFIG_DICT`` (YAML) and its name in
``NEMO_GYM_CONFIG_PATH``; the server answers seed_session, the seven tools, verify, close_session,
aggregate_metrics and reverify_mode (docs/serve.md).
"""

from __future__ import annotations

import json
import os
import sys

import yaml


def serve_arguments(config: dict, name: str) -> list[str]:
    """``planshape serve``'s arguments for the instance ``name`` of NeMo Gym's merged ``config``."""
    block = next(iter(config[name]["resources_servers"].values()))
    args = ["serve", "--config", json.dumps(block["planshape"]), "--host", str(block["host"]), "--port",
            str(block["port"])]
    for key in ("workers", "step", "max_turns", "fronts", "token_file"):
        if block.get(key) is not None:
            args += [f"--{key.replace('_', '-')}", str(block[key])]
    for network in block.get("allow") or ():
        args += ["--allow", str(network)]
    return args


if __name__ == "__main__":  # this venv's planshape, in place of this process (NeMo Gym stops it by its pid)
    arguments = serve_arguments(yaml.safe_load(os.environ["NEMO_GYM_CONFIG_DICT"]), os.environ["NEMO_GYM_CONFIG_PATH"])
    os.execv(sys.executable, [sys.executable, "-m", "planshape.shaping.cli", *arguments])
