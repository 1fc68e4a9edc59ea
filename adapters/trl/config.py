"""The shaping configuration of a TRL run: the user's planshape config plus what TRL already knows.

A run's length is ``GRPOConfig.max_steps``: the facade fills ``total_steps`` (α's decay horizon) from it, and
refuses a config that says another length. Everything else is the facade's to validate: a misspelt key or a
missing database fails here, before any model is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planshape.shaping.facade import Shaper


def run_shaper(source: str | Mapping[str, Any], max_steps: int) -> Shaper:
    """The ``Shaper`` of a run of ``max_steps`` optimizer steps (``max_steps`` <= 0: not known up front), from a
    mapping, a YAML/JSON file or inline YAML/JSON text."""
    return Shaper.from_mapping(source, max_steps, "GRPOConfig.max_steps")
