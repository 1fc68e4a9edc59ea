"""planshape for TRL 1.16's ``GRPOTrainer``: the reward function, the PlanPO trainer, tools, data, and the
``environment_factory`` class.

    from planshape.adapters.trl import PlanPOTrainer, PlanshapeReward, planner_tools, to_dataset
    from planshape.adapters.trl import EnvironmentGRPOTrainer, travelplanner_env

Names load on first use, so ``planshape.adapters.trl.cli`` imports without TRL installed; the trainer checks
the TRL version and the private methods it overrides when it is imported (``version.py``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_NAMES = {
    "PlanshapeReward": "reward", "PlanPOMixin": "trainer", "PlanPOTrainer": "trainer", "planner_tools": "tools",
    "to_dataset": "data", "load_queries": "data", "check_version": "version", "tiny_model": "tiny",
    "tiny_tokenizer": "tiny", "run_shaper": "config", "travelplanner_env": "environment",
    "TravelPlannerEnv": "environment", "EnvironmentAnswers": "environment", "EnvironmentGRPOTrainer": "environment",
}
__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_NAMES[name]}", __name__), name)
