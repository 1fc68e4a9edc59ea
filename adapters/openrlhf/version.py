"""The supported OpenRLHF versions, checked when a module that patches or subclasses OpenRLHF is imported.

The adapter relies on 0.11's dotted CLI, ``AgentInstanceBase``'s protocol and the body of
``compute_advantages_and_returns``; another minor version may move any of them, so it is refused up front.
"""

from __future__ import annotations

from importlib import metadata

SUPPORTED = "0.11"


def check_version() -> str:
    """The installed OpenRLHF version; ``ImportError`` saying what to install when it is missing or unsupported."""
    try:
        version = metadata.version("openrlhf")
    except metadata.PackageNotFoundError:
        raise ImportError(
            f"planshape.adapters.openrlhf needs OpenRLHF {SUPPORTED}.x, which is not installed: "
            f"pip install 'openrlhf>={SUPPORTED},<0.12'"
        ) from None
    if version.split(".")[:2] != SUPPORTED.split("."):
        raise ImportError(
            f"planshape.adapters.openrlhf supports OpenRLHF {SUPPORTED}.x, found {version}: "
            f"pip install 'openrlhf>={SUPPORTED},<0.12'"
        )
    return version
