"""The shaping configuration of a TRL run: the user's planshape config plus what TRL already knows.

A run's length is ``GRPOConfig.max_steps``; PlanPO's α decays over it, so when the planshape config sets
neither ``total_steps`` nor ``alpha.steps``, ``max_steps`` is filled in. Everything else is the facade's to
validate: a misspelt key or a missing database fails here, before any model is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planshape.shaping.bridge import ConfigError, Shaper


def read_mapping(source: str | Mapping[str, Any]) -> dict[str, Any]:
    """A planshape config from a mapping, a YAML/JSON file, or inline YAML/JSON text."""
    if isinstance(source, Mapping):
        return dict(source)
    import yaml  # a TRL dependency

    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else source
        data = yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"planshape config {source!r}: not a readable YAML/JSON file or text ({exc})") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"planshape config {source!r}: expected a mapping of settings, got {type(data).__name__}")
    return dict(data)


def run_shaper(source: str | Mapping[str, Any], max_steps: int) -> Shaper:
    """The ``Shaper`` of a run of ``max_steps`` optimizer steps (``max_steps`` <= 0: not known up front)."""
    mapping = read_mapping(source)
    alpha = mapping.get("alpha")
    horizon_set = mapping.get("total_steps") is not None or (isinstance(alpha, Mapping) and alpha.get("steps"))
    if not horizon_set and max_steps > 0:
        mapping["total_steps"] = max_steps
    return Shaper.from_mapping(mapping)
