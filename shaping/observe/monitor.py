"""The reward-hacking monitor's metrics: per-sample values and batch rates under fixed names.

The checking (``Monitor``, ``Watch``: the official verdict beside the reward's own) lives in
``planshape.validators.travelplanner.checks.monitor``; this module names what the facade logs from it: the share
of samples that pass official but fail strict (``exploit``), per strict rule (``exploit/<flag>``), rises
before benchmark numbers start to lie.
"""

from __future__ import annotations

from planshape.validators.travelplanner.checks.modes import QUIRKS
from planshape.validators.travelplanner.checks.monitor import NOT_CHECKED, UNATTRIBUTED, Monitor, Watch

__all__ = ["EXPLOIT", "MONITOR_METRICS", "NOT_CHECKED", "OFFICIAL_PASS", "STRICT_PASS", "UNATTRIBUTED", "Monitor",
           "Watch", "exploit_key", "watch_metrics"]

OFFICIAL_PASS, STRICT_PASS, EXPLOIT = "official_pass", "strict_pass", "exploit"


def exploit_key(rule: str) -> str:
    """The key of the exploit rate attributed to one strict rule (``exploit/<flag>``, or ``exploit/unattributed``)."""
    return f"{EXPLOIT}/{rule}"


_BY_QUIRK = tuple((quirk, exploit_key(quirk)) for quirk in QUIRKS)

# Per-sample metric names (the facade logs them under ``planshape/``); their batch means are the rates.
MONITOR_METRICS = (OFFICIAL_PASS, STRICT_PASS, EXPLOIT, *(key for _, key in _BY_QUIRK), exploit_key(UNATTRIBUTED))


def watch_metrics(watch: Watch) -> dict[str, float]:
    """Every name of ``MONITOR_METRICS`` for one sample, as 0/1 values (the batch mean of each is its rate)."""
    out = {OFFICIAL_PASS: float(watch.official_pass), STRICT_PASS: float(watch.strict_pass),
           EXPLOIT: float(watch.exploit)}
    named = set(watch.rules) if watch.exploit else set()
    out.update({key: float(quirk in named) for quirk, key in _BY_QUIRK})
    out[MONITOR_METRICS[-1]] = float(watch.exploit and not watch.rules)
    return out
