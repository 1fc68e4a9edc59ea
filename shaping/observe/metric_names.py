"""The names planshape logs under, the same in every trainer's log and in ``planshape report``:
``planshape/<name>``, in five groups a config can switch on and off (``ShapingConfig.metrics``). Every key is
spelled here once; each producer (a sample's score, carried samples weighed at the trainer's step, a batch's
advantages, the report's per-step values) builds its values through these names."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from typing import TypeVar

V = TypeVar("V")

PREFIX = "planshape/"
REWARD, SUCCESS = "reward", "success"
CORE = (REWARD, SUCCESS)
FAILURE = "failure/"  # ``planshape/failure/<category>``: 1 for the one category a sample is counted under

# core: reward and success; components: Planner-R1's six reward components; failures: one 0/1 key per failure
# category; monitor: the reward-hacking monitor's rates (with ``monitor: true``); advantages: the estimator's
# statistics, logged where planshape computes the advantages.
GROUPS = ("core", "components", "failures", "monitor", "advantages")


def metric_name(key: str) -> str:
    """A metric's logged name."""
    return f"{PREFIX}{key}"


def core_metrics(reward: V, success: V) -> dict[str, V]:
    """The ``core`` group's values: the reward trained on, and the success flag PlanPO uses (numbers, or one
    column of them per name)."""
    return {metric_name(REWARD): reward, metric_name(SUCCESS): success}


@lru_cache(maxsize=64)
def failure_names(categories: tuple[str, ...]) -> tuple[str, ...]:
    """The ``failures`` group's name of each failure category, in order."""
    return tuple(metric_name(FAILURE + c) for c in categories)


@dataclass(frozen=True)
class AdvantageStats:
    """The ``advantages`` group: one batch's estimator statistics, each trajectory counted once. The same names for
    every estimator: ``adv_e`` the per-trajectory term (PlanPO's A^E, GiGPO's episode advantage, GRPO's and RLOO's
    whole advantage), ``adv_s`` the per-turn term (PlanPO's A^S, GiGPO's step advantage; 0 for GRPO and RLOO),
    ``alpha`` its weight (PlanPO's α(k), GiGPO's ω; 0 for GRPO and RLOO; None where it is not known)."""

    alpha: float | None
    adv_e_mean: float
    adv_e_std: float
    adv_s_mean: float
    adv_s_std: float
    turns_mean: float
    turns_max: float
    turn_tokens_mean: float
    success_rate: float
    groups_multi_success: float

    def metrics(self) -> dict[str, float]:
        """Every statistic under its logged name (``alpha`` left out where it is not known)."""
        return {metric_name(key): float(value) for key, value in asdict(self).items() if value is not None}


ADVANTAGE_STATS = tuple(f.name for f in fields(AdvantageStats))
