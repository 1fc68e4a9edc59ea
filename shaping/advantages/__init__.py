"""Advantage estimation: the estimators (GRPO, PlanPO, GiGPO, RLOO) over per-turn rollouts, their validated
inputs, anchor states, the turn spans of a trainer's mask (with the CPU kernels) and the broadcast of per-turn
values onto tokens.

``estimators``, ``gigpo``, ``rloo``, ``anchors`` and ``inputs`` need numpy only; ``turns`` and ``tokens`` need
torch and are imported on use.

Three trajectories of one task, two successful (2 and 3 turns), one failed; tokens per turn in the lists:

>>> rollouts = Rollouts.build(["q", "q", "q"], [1.0, 1.0, 0.0], [True, True, False], [[10, 40], [10, 10, 10], [5]])
>>> grpo(rollouts).trajectory.round(3)  # the outcome alone: both successes alike
array([ 0.577,  0.577, -1.155])
>>> result = planpo(rollouts, alpha=0.1, grouping="index-success")
>>> result.trajectory.round(3)  # A^E: the shorter success gets more
array([ 0.873,  0.218, -1.091])
>>> result.turn.round(3)  # A^S per turn: the 40-token turn against the 10-token one at the same index
array([ 0.   , -0.707,  0.   ,  0.707,  0.   , -0.   ])
"""

from .estimators import Advantages, Estimator, Rollouts, grpo, planpo, segment_normalise
from .gigpo import gigpo
from .rloo import rloo

BUILTIN_ESTIMATORS: dict[str, Estimator] = {"grpo": grpo, "planpo": planpo, "gigpo": gigpo, "rloo": rloo}

__all__ = ["BUILTIN_ESTIMATORS", "Advantages", "Estimator", "Rollouts", "gigpo", "grpo", "planpo", "rloo",
           "segment_normalise"]
