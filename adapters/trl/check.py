"""A preflight for a TRL run: ``planshape trl check --shaping FILE --max-steps N``.

What the trainer would refuse at start-up, checked before any model is loaded: the installed TRL and the
private methods the PlanPO trainer overrides (``version.py``), and the planshape config against the run's
length (``max_steps``, α's horizon).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .config import run_shaper
from .version import check_version


def check_launch(shaping: str | Mapping[str, Any], max_steps: int) -> dict[str, Any]:
    """The TRL version and what will run; raises ``UnsupportedTRL`` or ``ConfigError`` saying what to fix."""
    version = check_version()
    return {"trl": version, "shaping": run_shaper(shaping, max_steps).describe()}
