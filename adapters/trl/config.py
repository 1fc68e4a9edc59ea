"""The shaping configuration of a TRL run: the user's planshape config plus what TRL already knows.

A run's length is ``GRPOConfig.max_steps``: the facade fills ``total_steps`` (α's decay horizon) from it, and
refuses a config that says another length. Everything else is the facade's to validate: a misspelt key or a
missing database fails here, before any model is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from planshape.shaping.facade import Shaper, renamed

RUN_STEPS = "GRPOConfig.max_steps"


@renamed(max_steps="run_steps")
def run_shaper(settings: Any, run_steps: int | None = None) -> Shaper:
    """The ``Shaper`` of a run of ``run_steps`` optimizer steps (``GRPOConfig.max_steps``; None or <= 0: not known
    up front), from a mapping, a YAML/JSON file or inline YAML/JSON text; one per process for equal settings."""
    return Shaper.shared(settings, run_steps, RUN_STEPS)


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import RunShaper

    _contract: RunShaper = run_shaper
