"""A preflight for a TRL run: ``planshape trl check --config FILE --max-steps N``.

What the trainer would refuse at start-up, checked before any model is loaded: the installed TRL against the
range and what that release runs (``support.py``), the private methods the PlanPO trainer overrides
(``version.py``), and the planshape config against the run's length (``max_steps``, α's horizon).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planshape.shaping.facade import ConfigError, Report, UnsupportedRelease, check_shaper

from .config import run_shaper
from .support import PLANPO, SUPPORT
from .version import check_trainer, check_version


def check_launch(config: str | Mapping[str, Any], max_steps: int) -> Report:
    """The TRL version and what it runs, the config against the run's length, the database, and what will run;
    raises ``UnsupportedRelease`` when TRL itself is outside the range."""
    version = check_version()
    report = Report(lines=[f"trl {version} (planshape supports {SUPPORT.range})"])
    for what, ok, gets in SUPPORT.rows(version):
        report.lines.append(f"{'runs' if ok else 'not in ' + version}: {what}" + ("" if ok else f" ({gets})"))
    if SUPPORT.has(PLANPO, version):
        try:
            check_trainer()
        except UnsupportedRelease as exc:  # the reward still runs: only the trainer is refused
            report.errors.append(str(exc))
    if max_steps <= 0:
        report.unchecked.append("total_steps against the run's length: pass --max-steps (GRPOConfig.max_steps)")
    try:
        shaper = run_shaper(config, max_steps)
    except ConfigError as exc:
        report.errors.append(f"planshape config: {exc}")
        return report
    needs = shaper.config.estimator_problems()  # only the trainer estimates: the reward alone needs none of it
    if needs and SUPPORT.has(PLANPO, version):
        report.warnings.append("PlanPOTrainer would refuse this config (PlanshapeReward alone needs none of it): "
                               + "; ".join(f"{field}: {why}" for field, why in needs.items()))
    check_shaper(shaper, report)
    return report
