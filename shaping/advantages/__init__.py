"""Advantage estimation: the estimators (GRPO, PlanPO) over per-turn rollouts, their validated inputs, the turn
spans of a trainer's mask (with the CPU kernels) and the broadcast of per-turn values onto tokens.

``estimators`` and ``inputs`` need numpy only; ``turns`` and ``tokens`` need torch and are imported on use.
"""

from .estimators import BUILTIN_ESTIMATORS, Advantages, Estimator, Rollouts, grpo, planpo, segment_normalise

__all__ = ["BUILTIN_ESTIMATORS", "Advantages", "Estimator", "Rollouts", "grpo", "planpo", "segment_normalise"]
