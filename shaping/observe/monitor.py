"""The reward-hacking monitor's metrics: per-sample values and batch rates under fixed names.

The checking (``Monitor``, ``Watch``: the official verdict beside the reward's own) lives in
``planshape.validators.travelplanner.checks.monitor``; this module names what the facade logs from it: the share
of samples that pass official but fail strict (``exploit``), per strict rule (``exploit/<flag>``), rises
before benchmark numbers start to lie.
"""

from __future__ import annotations

from planshape.validators.travelplanner.checks.modes import QUIRKS
from planshape.validators.travelplanner.checks.monitor import NOT_CHECKED, UNATTRIBUTED, Monitor, Watch

from .metric_names import PREFIX

__all__ = ["MONITOR_METRICS", "NOT_CHECKED", "PREFIX", "UNATTRIBUTED", "Monitor", "Watch", "watch_metrics"]

# Per-sample metric names (the facade logs them under ``planshape/``); their batch means are the rates.
MONITOR_METRICS = ("official_pass", "strict_pass", "exploit", *(f"exploit/{q}" for q in QUIRKS),
                   f"exploit/{UNATTRIBUTED}")


def watch_metrics(watch: Watch) -> dict[str, float]:
    """Every name of ``MONITOR_METRICS`` for one sample, as 0/1 values (the batch mean of each is its rate)."""
    out = {"official_pass": float(watch.official_pass), "strict_pass": float(watch.strict_pass),
           "exploit": float(watch.exploit)}
    named = set(watch.rules) if watch.exploit else set()
    for quirk in QUIRKS:
        out[f"exploit/{quirk}"] = float(quirk in named)
    out[f"exploit/{UNATTRIBUTED}"] = float(watch.exploit and not watch.rules)
    return out
