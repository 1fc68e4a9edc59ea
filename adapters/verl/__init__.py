"""planshape for VERL 0.9.x: Planner-R1 rewards, PlanPO advantages and the TravelPlanner tools, as plugins.

Installing planshape registers ``planshape.adapters.verl.register`` under VERL's ``verl.plugins`` entry
point, so ``import verl`` in every Ray process (trainer, reward-loop and agent-loop workers) registers the
``planpo`` estimator and the ``planshape`` reward manager. The submodules import VERL; this package does not,
so ``planshape verl ...`` commands can build their parser without it.
"""

from .version import SUPPORTED, check_version

__all__ = ["SUPPORTED", "check_version"]
