"""The supported OpenRLHF versions, checked when a module that patches or subclasses OpenRLHF is imported.

The adapter relies on 0.11's dotted CLI, ``AgentInstanceBase``'s protocol and the body of
``compute_advantages_and_returns``; another minor version may move any of them, so it is refused up front.
"""

from __future__ import annotations

from importlib import metadata

from planshape.shaping.facade import UnsupportedRelease

SUPPORTED = "0.11"


def check_version(version: str | None = None) -> str:
    """The installed OpenRLHF version (or ``version``, checked as if installed); ``UnsupportedRelease`` saying what
    to install when it is missing or unsupported."""
    try:
        version = version or metadata.version("openrlhf")
    except metadata.PackageNotFoundError:
        raise UnsupportedRelease(
            f"planshape.adapters.openrlhf needs OpenRLHF {SUPPORTED}.x, which is not installed: "
            f"pip install 'openrlhf>={SUPPORTED},<0.12'"
        ) from None
    if version.split(".")[:2] != SUPPORTED.split("."):
        raise UnsupportedRelease(
            f"planshape.adapters.openrlhf supports OpenRLHF {SUPPORTED}.x, found {version}: "
            f"pip install 'openrlhf>={SUPPORTED},<0.12'"
        )
    return version
