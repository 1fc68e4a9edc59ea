"""The verifiers environment ``planshape-travelplanner``: TravelPlanner with planshape's prompt, tools and reward.

verifiers loads an environment by id from the package of that name (``vf-eval planshape-travelplanner``), so this
package exports the taskset and its env; both live in ``planshape.adapters.verifiers``.
"""

from planshape.adapters.verifiers.taskset import TravelPlannerEnv, TravelPlannerTaskset

__all__ = ["TravelPlannerEnv", "TravelPlannerTaskset"]
