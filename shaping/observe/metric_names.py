"""The names planshape logs under, the same in every trainer's log and in ``planshape report``:
``planshape/<name>``, in five groups a config can switch on and off (``ShapingConfig.metrics``). Every key is
spelled here once; each producer (a sample's score, carried samples weighed at the trainer's step, a batch's
advantages, the report's per-step values) builds its values through these names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from typing import Any, TypeVar

from ..components import COMPONENTS
from .monitor import MONITOR_METRICS

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


CORE_NAMES = (metric_name(REWARD), metric_name(SUCCESS))


def core_metrics(reward: V, success: V) -> dict[str, V]:
    """The ``core`` group's values: the reward trained on, and the success flag PlanPO uses (numbers, or one
    column of them per name)."""
    return dict(zip(CORE_NAMES, (reward, success), strict=True))


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


@dataclass(frozen=True)
class MetricNames:
    """The names one run logs: every name each group can log (``groups``; the monitor's only with the monitor on),
    the per-sample names of the groups the config keeps (``sample``, the key set of ``SampleScore.metrics()``) and
    the per-batch advantage statistics it keeps (``advantage``).

    >>> names = MetricNames(("pass", "no_answer"), monitor=False, logged=("core", "failures"))
    >>> names.sample
    ('planshape/reward', 'planshape/success', 'planshape/failure/pass', 'planshape/failure/no_answer')
    """

    categories: tuple[str, ...]
    monitor: bool
    logged: tuple[str, ...] = GROUPS  # the config's ``metrics``
    groups: dict[str, tuple[str, ...]] = field(init=False, repr=False)
    sample: tuple[str, ...] = field(init=False)
    advantage: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        groups = {
            "core": tuple(metric_name(k) for k in CORE),
            "components": tuple(metric_name(k) for k in COMPONENTS),
            "failures": failure_names(tuple(self.categories)),
            "monitor": tuple(metric_name(k) for k in MONITOR_METRICS) if self.monitor else (),
            "advantages": tuple(metric_name(k) for k in ADVANTAGE_STATS),
        }
        on = {g: groups[g] if g in self.logged else () for g in GROUPS}
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "sample", (*on["core"], *on["components"], *on["failures"], *on["monitor"]))
        object.__setattr__(self, "advantage", on["advantages"])

    def columns(self, scores: Sequence[Any]) -> dict[str, list[float]]:
        """Every name of ``sample`` with one value per score, in order (what a trainer stacks or averages over a
        batch)."""
        rows = [s.metrics() for s in scores]
        return {name: [row[name] for row in rows] for name in self.sample}

    def means(self, scores: Sequence[Any]) -> dict[str, float]:
        """The batch mean of every name of ``sample`` (0 for an empty batch)."""
        return {name: (sum(col) / len(col) if col else 0.0) for name, col in self.columns(scores).items()}

    def logged_means(self, rows: Iterable[Any]) -> dict[str, float]:
        """The batch mean of each ``sample`` name over per-sample metric dicts a trainer stored (VERL's
        ``reward_extra_info``); a name is left out only when no row has it (a reward that is not planshape's).
        Rows that are not mappings are skipped."""
        kept = [row for row in rows if isinstance(row, Mapping)]
        out = {}
        for name in self.sample:
            values = [float(row[name]) for row in kept if name in row]
            if values:
                out[name] = sum(values) / len(values)
        return out

    def advantage_values(self, stats: AdvantageStats) -> dict[str, float]:
        """The statistics the config keeps, under their names (none with the ``advantages`` group off)."""
        values = stats.metrics()
        return {name: values[name] for name in self.advantage}
