"""The supported TRL: 1.16.x, whose private ``GRPOTrainer`` methods the PlanPO trainer overrides.

``_generate_and_score_completions`` and ``_calculate_rewards`` are private and change between releases
(1.15 -> 1.16 added ~75 lines to grpo_trainer.py), so a mismatch must fail at import with what to install,
not train with silently wrong advantages.
"""

from __future__ import annotations

import inspect

from planshape.shaping.facade import UnsupportedRelease

SUPPORTED = "1.16"
INSTALL = "pip install 'trl==1.16.0' (see scripts/setup-trl.sh)"
# The private methods the trainer overrides, with the parameters it relies on.
OVERRIDDEN = {
    "_generate_and_score_completions": ("self", "inputs"),
    "_calculate_rewards": ("self", "inputs", "prompts", "completions", "completion_ids_list"),
}


def check_version(version: str | None = None) -> str:
    """The installed TRL version (or ``version``, checked as if installed); raises ``UnsupportedRelease`` saying
    what to install when it is not supported."""
    try:
        import trl
        from trl import GRPOTrainer
    except ImportError as exc:
        raise UnsupportedRelease(f"planshape.adapters.trl needs TRL {SUPPORTED}.x ({exc}); {INSTALL}") from exc
    version = version or str(getattr(trl, "__version__", "unknown"))
    if version.split(".")[:2] != SUPPORTED.split("."):
        raise UnsupportedRelease(f"planshape.adapters.trl supports TRL {SUPPORTED}.x, found {version}; {INSTALL}")
    for name, expected in OVERRIDDEN.items():
        method = getattr(GRPOTrainer, name, None)
        found = tuple(inspect.signature(method).parameters) if callable(method) else None
        if found != expected:
            raise UnsupportedRelease(f"TRL {version}: GRPOTrainer.{name} has parameters {found}, the PlanPO trainer "
                                 f"overrides {expected}; {INSTALL}")
    return version
