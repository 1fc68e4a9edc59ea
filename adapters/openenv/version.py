"""The supported OpenEnv: 0.10.x of the ``openenv`` distribution (what TRL's and verifiers' OpenEnv code imports;
``openenv-core`` 0.3 is the older distribution of the same package). The environment subclasses
``MCPEnvironment`` and serves through ``create_app``, whose signatures moved across releases: another release
fails at import with what to install."""

from __future__ import annotations

from planshape.shaping.facade import UnsupportedRelease

SUPPORTED = "0.10"
INSTALL = "pip install 'openenv==0.10.0' (see scripts/setup-openenv.sh)"


def check_version(version: str | None = None) -> str:
    """The installed OpenEnv version (or ``version``, checked as if installed); raises the facade's
    ``UnsupportedRelease`` saying what to install otherwise."""
    try:
        import openenv
    except ImportError as exc:
        raise UnsupportedRelease(f"planshape's OpenEnv server needs OpenEnv {SUPPORTED}.x ({exc}); {INSTALL}") from exc
    version = version or str(getattr(openenv, "__version__", "unknown"))
    if version.split(".")[:2] != SUPPORTED.split("."):
        raise UnsupportedRelease(f"planshape's OpenEnv server supports OpenEnv {SUPPORTED}.x, found {version}; "
                                 f"{INSTALL}")
    return version
