"""THE metric names a run logs, by group, and the batch values behind them: the one place a trainer's log, the
verdict log's report and the docs take them from (``observe.metric_names`` holds the bare keys)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..components import COMPONENTS
from ..observe.metric_names import ADVANTAGE_STATS, CORE, GROUPS, AdvantageStats, failure_names, metric_name
from ..observe.monitor import MONITOR_METRICS

if TYPE_CHECKING:
    from ..advantages import Advantages
    from ..scores import SampleScore


def metric_groups(categories: Sequence[str], monitor: bool) -> dict[str, tuple[str, ...]]:
    """Every name each group can log, in log order (the monitor's only with the monitor on)."""
    return {
        "core": tuple(metric_name(k) for k in CORE),
        "components": tuple(metric_name(k) for k in COMPONENTS),
        "failures": failure_names(tuple(categories)),
        "monitor": tuple(metric_name(k) for k in MONITOR_METRICS) if monitor else (),
        "advantages": tuple(metric_name(k) for k in ADVANTAGE_STATS),
    }


class MetricNames:
    """The names a ``Shaper`` logs (``metric_names`` per sample, ``advantage_metric_names`` per batch) and the
    batch columns and means of its scores."""

    metric_groups: dict[str, tuple[str, ...]]
    metric_names: tuple[str, ...]
    advantage_metric_names: tuple[str, ...]

    def _name_metrics(self, categories: Sequence[str], monitor: bool, groups: Sequence[str]) -> None:
        self.metric_groups = metric_groups(categories, monitor)
        on = {g: self.metric_groups[g] if g in groups else () for g in GROUPS}
        self.metric_names = (*on["core"], *on["components"], *on["failures"], *on["monitor"])
        self.advantage_metric_names = on["advantages"]

    def metric_columns(self, scores: Sequence[SampleScore]) -> dict[str, list[float]]:
        """Every name of ``metric_names`` with one value per sample, in order (what a trainer stacks or averages
        over a batch)."""
        rows = [s.metrics() for s in scores]
        return {name: [row[name] for row in rows] for name in self.metric_names}

    def metric_means(self, scores: Sequence[SampleScore]) -> dict[str, float]:
        """The batch mean of every name of ``metric_names`` (0 for an empty batch)."""
        return {name: (sum(col) / len(col) if col else 0.0) for name, col in self.metric_columns(scores).items()}

    def logged_means(self, rows: Iterable[Any]) -> dict[str, float]:
        """The batch mean of each ``metric_names`` entry over per-sample metric dicts (what a trainer stored per
        row, e.g. VERL's ``reward_extra_info``); a name is left out only when no row has it (a reward that is not
        planshape's). Rows that are not mappings are skipped."""
        kept = [row for row in rows if isinstance(row, Mapping)]
        out = {}
        for name in self.metric_names:
            values = [float(row[name]) for row in kept if name in row]
            if values:
                out[name] = sum(values) / len(values)
        return out

    def advantage_stats(self, result: Advantages, turns: np.ndarray, lengths: np.ndarray, success: np.ndarray,
                        groups: np.ndarray) -> dict[str, float]:
        """Every name of ``advantage_metric_names`` for one batch, each trajectory counted once (``groups``:
        dense group codes per trajectory)."""
        per_group = np.bincount(groups, weights=success.astype(np.float64))
        stats = AdvantageStats(
            alpha=result.alpha, adv_e_mean=_mean(result.trajectory), adv_e_std=_std(result.trajectory),
            adv_s_mean=_mean(result.turn), adv_s_std=_std(result.turn), turns_mean=_mean(turns),
            turns_max=float(turns.max(initial=0)), turn_tokens_mean=_mean(lengths),
            success_rate=_mean(success.astype(np.float64)), groups_multi_success=_mean(per_group >= 2)).metrics()
        return {name: stats[name] for name in self.advantage_metric_names}


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if len(x) else 0.0


def _std(x: np.ndarray) -> float:
    return float(x.std()) if len(x) else 0.0
