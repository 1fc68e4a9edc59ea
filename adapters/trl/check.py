"""A preflight for a TRL run: ``planshape trl check --config FILE --max-steps N``.

What the trainer would refuse at start-up, checked before any model is loaded: the installed TRL and the
private methods the PlanPO trainer overrides (``version.py``), and the planshape config against the run's
length (``max_steps``, α's horizon).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planshape.shaping.facade import ConfigError, Report, check_shaper

from .config import run_shaper
from .version import check_version


def check_launch(config: str | Mapping[str, Any], max_steps: int) -> Report:
    """The TRL version, the config against the run's length, the database, and what will run; raises
    ``UnsupportedRelease`` when TRL itself is not the supported one."""
    report = Report(lines=[f"trl {check_version()}"])
    if max_steps <= 0:
        report.unchecked.append("total_steps against the run's length: pass --max-steps (GRPOConfig.max_steps)")
    try:
        shaper = run_shaper(config, max_steps)
    except ConfigError as exc:
        report.errors.append(f"planshape config: {exc}")
        return report
    check_shaper(shaper, report)
    return report
