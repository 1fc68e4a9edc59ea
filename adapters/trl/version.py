"""The installed TRL against planshape's range (``support.py``) and the private methods ``PlanPOTrainer`` overrides.

``_generate_and_score_completions`` and ``_calculate_rewards`` are private and their bodies change between
releases, so besides the release (``PlanPOTrainer`` needs >= 1.9) the trainer checks their signatures at import:
a mismatch fails with what to install, not a run with silently wrong advantages.
"""

from __future__ import annotations

import inspect

from planshape.shaping.facade import UnsupportedRelease

from .support import PLANPO, SUPPORT

SUPPORTED = SUPPORT.range
INSTALL = f"pip install '{SUPPORT.spec}' (see scripts/setup-trl.sh)"
# The private methods the trainer overrides, with the parameters it relies on.
OVERRIDDEN = {
    "_generate_and_score_completions": ("self", "inputs"),
    "_calculate_rewards": ("self", "inputs", "prompts", "completions", "completion_ids_list"),
}


def installed() -> str:
    """TRL's own ``__version__`` (what ``import trl`` reports), or ``UnsupportedRelease`` when it does not import."""
    try:
        import trl
    except ImportError as exc:
        raise UnsupportedRelease(f"planshape's TRL adapter needs TRL {SUPPORTED} ({exc}); {INSTALL}") from exc
    return str(getattr(trl, "__version__", "unknown"))


def check_version(version: str | None = None) -> str:
    """The installed TRL version (or ``version``, checked as if installed), or ``UnsupportedRelease``: one line
    naming the range."""
    return SUPPORT.check(installed() if version is None else version)


def check_trainer() -> str:
    """``check_version`` plus what ``PlanPOTrainer`` needs: TRL >= 1.9 and the signatures it overrides."""
    version = check_version()
    gate = SUPPORT.gate(PLANPO, version)
    if gate is not None:
        raise UnsupportedRelease(gate)
    from trl import GRPOTrainer

    for name, expected in OVERRIDDEN.items():
        method = getattr(GRPOTrainer, name, None)
        found = tuple(inspect.signature(method).parameters) if callable(method) else None
        if found != expected:
            raise UnsupportedRelease(f"TRL {version}: GRPOTrainer.{name} has parameters {found}, the PlanPO trainer "
                                 f"overrides {expected}; {INSTALL}")
    return version
