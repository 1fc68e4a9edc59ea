"""A preflight for a TRL run: ``planshape trl check --config FILE [--max-steps N | -- --max_steps N ...]``.

What the trainer would refuse at start-up, checked before any model is loaded: the installed TRL against the
range and what that release runs (``support.py``), the private methods the PlanPO trainer overrides
(``version.py``), and the planshape config against the run's length (``max_steps``, α's horizon).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from planshape.shaping.facade import ConfigError, Report, UnsupportedRelease, check_shaper

from .config import run_shaper
from .support import PLANPO, SUPPORT
from .version import check_trainer, check_version


def check_launch(launch: Sequence[str] = (), config: Any = None, run_steps: int | None = None) -> Report:
    """The TRL version and what it runs, the config against the run's length, the database, and what will run;
    raises ``UnsupportedRelease`` when TRL itself is outside the range. ``launch``: the run's ``GRPOConfig`` flags,
    of which ``--max_steps`` is read (TRL validates the others against the machine's devices when it starts);
    ``run_steps``: the run's length where the flags do not give it."""
    if isinstance(launch, (str, Mapping)) and (config is None or isinstance(config, int)):
        warnings.warn("planshape.adapters.trl.check.check_launch(config, max_steps) is now check_launch(launch=(), "
                      "config=..., run_steps=...) (the adapter contract)", DeprecationWarning, stacklevel=2)
        launch, config, run_steps = (), launch, config  # the old call: check_launch(config, max_steps)
    if config is None:
        raise ValueError("planshape trl check needs the planshape config (--config FILE)")
    version = check_version()
    report = Report(lines=[f"trl {version} (planshape supports {SUPPORT.range})"])
    for what, ok, gets in SUPPORT.rows(version):
        report.lines.append(f"{'runs' if ok else 'not in ' + version}: {what}" + ("" if ok else f" ({gets})"))
    if SUPPORT.has(PLANPO, version):
        try:
            check_trainer()
        except UnsupportedRelease as exc:  # the reward still runs: only the trainer is refused
            report.errors.append(str(exc))
    steps = max_steps(launch) or run_steps
    if not steps or steps <= 0:
        report.unchecked.append("total_steps against the run's length: pass --max-steps (GRPOConfig.max_steps)")
    try:
        shaper = run_shaper(config, steps)
    except ConfigError as exc:
        report.errors.append(f"planshape config: {exc}")
        return report
    needs = shaper.config.estimator_problems()  # only the trainer estimates: the reward alone needs none of it
    if needs and SUPPORT.has(PLANPO, version):
        report.warnings.append("PlanPOTrainer would refuse this config (PlanshapeReward alone needs none of it): "
                               + "; ".join(f"{field}: {why}" for field, why in needs.items()))
    check_shaper(shaper, report)
    return report


def max_steps(launch: Sequence[str]) -> int | None:
    """``--max_steps`` of a run's ``GRPOConfig`` flags (None when not given)."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("--max_steps", "--max-steps", type=int)
    try:
        return parser.parse_known_args(list(launch))[0].max_steps
    except argparse.ArgumentError as exc:
        raise ValueError(f"the run's GRPOConfig flags: {exc}") from None


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import CheckLaunch

    _contract: CheckLaunch = check_launch
