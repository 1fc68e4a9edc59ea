"""Advantage estimation: the estimators (GRPO, PlanPO, GiGPO, RLOO) over per-turn rollouts, their validated
inputs, anchor states, the turn spans of a trainer's mask (with the CPU kernels) and the broadcast of per-turn
values onto tokens.

``estimators``, ``gigpo``, ``rloo``, ``anchors`` and ``inputs`` need numpy only; ``turns`` and ``tokens`` need
torch and are imported on use.
"""

from .estimators import Advantages, Estimator, Rollouts, grpo, planpo, segment_normalise
from .gigpo import gigpo
from .rloo import rloo

BUILTIN_ESTIMATORS: dict[str, Estimator] = {"grpo": grpo, "planpo": planpo, "gigpo": gigpo, "rloo": rloo}

__all__ = ["BUILTIN_ESTIMATORS", "Advantages", "Estimator", "Rollouts", "gigpo", "grpo", "planpo", "rloo",
           "segment_normalise"]
