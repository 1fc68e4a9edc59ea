"""The installed VERL against planshape's range (``support.py``), checked before anything touches VERL's internals.

A release outside 0.7.1-0.9.x is refused with one line naming the range: its plugin surfaces (estimator registry,
reward loop, tool loader, trainers) may have moved, and registrations could silently land in the wrong place.
Inside the range, a module that needs a release-bound feature asks ``SUPPORT.require`` for it.
"""

from __future__ import annotations

from .support import SUPPORT

SUPPORTED = SUPPORT.range
PIN = SUPPORT.spec


def installed_version() -> str | None:
    return SUPPORT.installed()


def check_version(version: str | None = None) -> str:
    """The installed VERL version (or ``version``, checked as if installed), or the facade's ``UnsupportedRelease``
    naming the range and what to install."""
    return SUPPORT.check(version)


def has(feature: str) -> bool:
    """Whether the installed VERL has a release-bound feature of ``support.py``."""
    return SUPPORT.has(feature)


def finish_registration() -> None:
    """Called at the end of a module that imports ``verl`` at its top: imported before ``verl``, that import ran
    the plugin (register.py) while the module was half-initialised, so its object is registered now that it
    exists; never where VERL did not load the plugin."""
    import sys

    plugin = sys.modules.get(f"{__package__}.register")
    if plugin is not None and hasattr(plugin, "register"):
        plugin.register()
