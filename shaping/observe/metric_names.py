"""The names planshape logs under, the same in every trainer's log and in ``planshape report``:
``planshape/<name>``, in five groups a config can switch on and off (``ShapingConfig.metrics``)."""

from __future__ import annotations

PREFIX = "planshape/"
CORE = ("reward", "success")
ADVANTAGE_STATS = ("alpha", "adv_e_mean", "adv_e_std", "adv_s_mean", "adv_s_std", "turns_mean", "turns_max",
                   "turn_tokens_mean", "success_rate", "groups_multi_success")
FAILURE = "failure/"  # ``planshape/failure/<category>``: 1 for the one category a sample is counted under

# core: reward and success; components: Planner-R1's six reward components; failures: one 0/1 key per failure
# category; monitor: the reward-hacking monitor's rates (with ``monitor: true``); advantages: the estimator's
# statistics, logged where planshape computes the advantages. The same names for every estimator: ``adv_e`` is
# the per-trajectory term (PlanPO's A^E, GiGPO's episode advantage, GRPO's and RLOO's whole advantage), ``adv_s``
# the per-turn term (PlanPO's A^S, GiGPO's step advantage; 0 for GRPO and RLOO), ``alpha`` its weight (PlanPO's
# α(k), GiGPO's ω; 0 for GRPO and RLOO).
GROUPS = ("core", "components", "failures", "monitor", "advantages")


def metric_name(key: str) -> str:
    """A metric's logged name."""
    return f"{PREFIX}{key}"
