"""The VERL versions this adapter is written against, checked before anything touches VERL's internals.

VERL's plugin surfaces (estimator registry, reward loop, tool loader, V1 trainer) moved within months
(V1 became the default in June 2026, interactions went in April): outside 0.9.x the registrations could
silently land in the wrong place, so anything else fails with what to install.
"""

from __future__ import annotations

from importlib import metadata

from planshape.shaping.facade import UnsupportedRelease

SUPPORTED = "0.9"  # major.minor
PIN = "verl[verl-core]==0.9.1"


def installed_version() -> str | None:
    try:
        return metadata.version("verl")
    except metadata.PackageNotFoundError:
        return None


def check_version(version: str | None = None) -> str:
    """The installed VERL version, or an error saying what to install."""
    found = installed_version() if version is None else version
    if found is None:
        raise UnsupportedRelease(
            f"planshape.adapters.verl needs VERL {SUPPORTED}.x, which is not installed: pip install '{PIN}' "
            "(install torch first, pinned to your CUDA build; see scripts/setup-verl.sh)")
    if ".".join(found.split(".")[:2]) != SUPPORTED:
        raise UnsupportedRelease(
            f"planshape.adapters.verl supports VERL {SUPPORTED}.x, found verl {found}: pip install '{PIN}'. "
            "Other versions moved the estimator registry, reward loop or tool loader this adapter plugs into.")
    return found


def finish_registration() -> None:
    """Called at the end of a module that imports ``verl`` at its top: imported before ``verl``, that import ran
    the plugin (register.py) while the module was half-initialised, so its object is registered now that it
    exists; never where VERL did not load the plugin."""
    import sys

    plugin = sys.modules.get(f"{__package__}.register")
    if plugin is not None and hasattr(plugin, "register"):
        plugin.register()
