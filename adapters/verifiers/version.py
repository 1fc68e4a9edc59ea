"""The supported verifiers: 0.4.x, the release whose ``verifiers.v1`` API (Taskset, Task, Toolset, Env) this
environment is written against; verifiers rewrote its environment API in 0.4, so another release must fail at
import with what to install, not at the first rollout."""

from __future__ import annotations

from planshape.shaping.facade import UnsupportedRelease

SUPPORTED = "0.4"
INSTALL = "pip install 'verifiers==0.4.0' (see scripts/setup-verifiers.sh)"


def check_version(version: str | None = None) -> str:
    """The installed verifiers version (or ``version``, checked as if installed); raises the facade's
    ``UnsupportedRelease`` saying what to install otherwise."""
    try:
        import verifiers
    except ImportError as exc:
        raise UnsupportedRelease(f"planshape's verifiers environment needs verifiers {SUPPORTED}.x ({exc}); "
                                   f"{INSTALL}") from exc
    version = version or str(getattr(verifiers, "__version__", "unknown"))
    if version.split(".")[:2] != SUPPORTED.split("."):
        raise UnsupportedRelease(f"planshape's verifiers environment supports verifiers {SUPPORTED}.x, found "
                                   f"{version}; {INSTALL}")
    return version
