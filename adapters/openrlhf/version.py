"""The installed OpenRLHF against planshape's range (``support.py``), checked when a module that patches or
subclasses OpenRLHF is imported: the adapter relies on the dotted CLI (0.10.2+), ``AgentInstanceBase``'s
protocol and ``compute_advantages_and_returns``, which another minor release may move, so anything outside the
range is refused up front with one line naming it.
"""

from __future__ import annotations

from .support import SUPPORT

SUPPORTED = SUPPORT.range


def check_version(version: str | None = None) -> str:
    """The installed OpenRLHF version (or ``version``, checked as if installed); the facade's ``UnsupportedRelease``
    naming the range and what to install otherwise."""
    return SUPPORT.check(version)
