"""The framework-agnostic core: rewards, schedules, advantage estimators, hooks and the CLI.

The public face, importable from here: ``Shaper`` and ``ShapingConfig`` (the facade adapters use, see
``planshape.shaping.facade``), ``ConfigError``, and ``hookimpl`` for plugins (docs/hooks.md). They are
loaded on first access, so importing a submodule stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import ConfigError, ShapingConfig
    from .facade import SampleScore, Shaper, TokenAdvantages
    from .hookspecs import hookimpl

_EXPORTS = {"Shaper": "facade", "SampleScore": "facade", "TokenAdvantages": "facade", "ShapingConfig": "config",
            "ConfigError": "config", "hookimpl": "hookspecs"}
__all__ = ["ConfigError", "SampleScore", "Shaper", "ShapingConfig", "TokenAdvantages", "hookimpl"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
