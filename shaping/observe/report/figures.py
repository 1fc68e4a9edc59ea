"""The report's figures (matplotlib, the optional ``planshape[report]`` extra), drawn from a ``LogSummary``.

Object-oriented matplotlib (``Figure``, no pyplot): no global state, safe beside a training process. Every
plotted series carries a ``gid`` (the check key, component or statistic name) so tests read back exactly
what each figure shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from planshape.validators.travelplanner.checks.registry import COMMONSENSE, HARD

from ..monitor import EXPLOIT, OFFICIAL_PASS, STRICT_PASS, exploit_key
from .data import LogSummary

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

LABELS = {c.key: c.label for c in (*COMMONSENSE, *HARD)}
FIGURES = ("failure_modes", "failure_groups", "reward", "exploit", "planpo", "final_pass")


def _figure(rows: int = 1, cols: int = 1, size: tuple[float, float] = (10, 4.5)) -> tuple[Figure, Any]:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("planshape report draws with matplotlib: pip install 'planshape[report]'") from None
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.subplots(rows, cols, squeeze=False)


def _line(ax: Axes, x: np.ndarray, y: np.ndarray, gid: str, label: str, **style: Any) -> None:
    (line,) = ax.plot(x, y, label=label, **style)
    line.set_gid(gid)


def _stages(ax: Axes, summary: LogSummary, label: bool = True) -> None:
    """Stage boundaries as dashed vertical lines (the first stage's start is not a boundary). Only the stages the
    log reached: a 16-step run of a 500-step schedule is drawn over its 16 steps, not squeezed left of step 400."""
    last = max(summary.step_numbers(), default=0)
    for start, name in summary.stage_boundaries():
        if start > last:
            continue
        if start > 0:
            line = ax.axvline(start, color="0.4", linestyle="--", linewidth=1)
            line.set_gid(f"stage:{name}")
        if label:
            ax.annotate(name, (start, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -12),
                        textcoords="offset points", fontsize=8, color="0.3")


def failure_modes(summary: LogSummary) -> Figure:
    """Each constraint's failure rate over training, commonsense beside hard (Planner-R1's failure modes)."""
    fig, axes = _figure(1, 2, (13, 4.8))
    steps, rates = summary.step_numbers(), summary.check_failure()
    for ax, checks, title in ((axes[0][0], COMMONSENSE, "commonsense"), (axes[0][1], HARD, "hard")):
        for check in checks:
            _line(ax, steps, rates[check.key], check.key, check.label, marker=".")
        ylabel = "share of checked plans failing"
        if title == "hard":
            _line(ax, steps, rates["hard_not_run"], "hard_not_run", "hard checks not run", color="0.3",
                  linestyle="--", linewidth=2)
            ylabel = "share of plans whose hard checks ran, failing"
        ax.set(title=f"{title} constraints: failure rate", xlabel="step", ylabel=ylabel, ylim=(-0.02, 1.02))
        _stages(ax, summary)
        ax.legend(fontsize=7, loc="upper right")
    return fig


def failure_groups(summary: LogSummary) -> Figure:
    """Commonsense vs hard failure, and the share of each failure category that is not a check."""
    fig, axes = _figure(1, 2, (13, 4.5))
    steps = summary.step_numbers()
    ax = axes[0][0]
    for name, series in summary.group_failure().items():
        _line(ax, steps, series, name, f"{name} (1 - macro pass)", linewidth=2)
    ax.set(title="commonsense vs hard failure", xlabel="step", ylabel="share of samples", ylim=(-0.02, 1.02))
    _stages(ax, summary)
    ax.legend(fontsize=8)
    ax = axes[0][1]
    failures = summary.failures()
    checks = [v for k, v in failures.items() if ":" in k or k == "hard_not_run"]
    if checks:
        _line(ax, steps, np.sum(checks, axis=0), "failure:checks", "a check failed", marker=".", linewidth=2)
    for name, series in failures.items():
        if ":" not in name and name != "hard_not_run":  # pass, no_answer, schema, error, timeout, crash
            _line(ax, steps, series, f"failure:{name}", name, marker=".")
    ax.set(title="outcome categories", xlabel="step", ylabel="share of samples", ylim=(-0.02, 1.02))
    _stages(ax, summary)
    ax.legend(fontsize=8)
    return fig


def reward(summary: LogSummary) -> Figure:
    """Mean reward and each component over training, with the schedule's stage boundaries."""
    fig, axes = _figure(2, 1, (10, 7.5))
    steps, series = summary.step_numbers(), summary.reward()
    top, bottom = axes[0][0], axes[1][0]
    _line(top, steps, series.pop("reward"), "reward", "reward", linewidth=2.5, color="black")
    top.set(title="reward (batch mean; its scale follows the stage's weights)", ylabel="reward")
    _stages(top, summary)
    for name, values in series.items():
        _line(bottom, steps, values, name, name, linewidth=1.5, marker=".")
    bottom.set(title="reward components (batch means)", xlabel="step", ylabel="value", ylim=(-0.02, 1.02))
    _stages(bottom, summary, label=False)
    bottom.legend(fontsize=8, ncols=3, loc="lower left")
    return fig


def exploit(summary: LogSummary) -> Figure:
    """The reward-hacking monitor: exploit rate (official pass, strict fail) by rule, and both pass rates."""
    fig, axes = _figure(1, 2, (13, 4.5))
    steps, series = summary.step_numbers(), summary.monitor()
    ax = axes[0][0]
    _line(ax, steps, series[EXPLOIT], EXPLOIT, "exploit (all rules)", linewidth=2.5, color="crimson")
    for name, values in series.items():
        if name.startswith(exploit_key("")):
            _line(ax, steps, values, name, name.split("/", 1)[1], linestyle=":", marker=".")
    ax.set(title="exploit rate: passes official, fails strict", xlabel="step", ylabel="share of samples")
    _stages(ax, summary)
    ax.legend(fontsize=8)
    ax = axes[0][1]
    _line(ax, steps, series[OFFICIAL_PASS], OFFICIAL_PASS, "official pass", linewidth=2)
    _line(ax, steps, series[STRICT_PASS], STRICT_PASS, "strict pass (the reward's)", linewidth=2)
    ax.fill_between(steps, series[STRICT_PASS], series[OFFICIAL_PASS], color="crimson", alpha=0.15,
                    label="gap = exploits")
    ax.set(title="final pass: official vs strict", xlabel="step", ylabel="share of samples", ylim=(-0.02, 1.02))
    _stages(ax, summary, label=False)
    ax.legend(fontsize=8)
    return fig


def planpo(summary: LogSummary) -> Figure:
    """PlanPO statistics per step: A^E and A^S spread, turns per trajectory, tokens per turn."""
    fig, axes = _figure(2, 2, (13, 8))
    steps, stats = summary.step_numbers("advantage"), summary.planpo()
    panels = (
        (axes[0][0], "adv_e", "A^E (per trajectory)"),
        (axes[0][1], "adv_s", "A^S (per turn)"),
    )
    for ax, part, title in panels:
        mean, std = stats[f"{part}_mean"], stats[f"{part}_std"]
        _line(ax, steps, mean, f"{part}_mean", "mean", color="C0")
        _line(ax, steps, std, f"{part}_std", "std", color="C1")
        ax.fill_between(steps, stats[f"{part}_min"], stats[f"{part}_max"], color="C0", alpha=0.15, label="min–max")
        ax.set(title=title, xlabel="step")
        _stages(ax, summary, label=False)
        ax.legend(fontsize=8)
    for ax, part, title in ((axes[1][0], "turns", "turns per trajectory"),
                            (axes[1][1], "turn_tokens", "generated tokens per turn")):
        _line(ax, steps, stats[f"{part}_mean"], f"{part}_mean", "mean", color="C2")
        _line(ax, steps, stats[f"{part}_max"], f"{part}_max", "max", color="C2", linestyle=":")
        ax.set(title=title, xlabel="step")
        _stages(ax, summary, label=False)
        ax.legend(fontsize=8)
    return fig


def _heatmap(ax: Axes, levels: list[str], days: list[int], rates: np.ndarray, counts: np.ndarray,
             title: str) -> None:
    image = ax.imshow(np.nan_to_num(rates, nan=0.0), vmin=0, vmax=1, cmap="viridis", aspect="auto")
    image.set_gid("final_pass")
    ax.set_xticks(range(len(days)), [f"{d} days" for d in days])
    ax.set_yticks(range(len(levels)), levels)
    for i in range(len(levels)):
        for j in range(len(days)):
            text = "–" if counts[i, j] == 0 else f"{rates[i, j]:.0%}\nn={int(counts[i, j])}"
            ax.text(j, i, text, ha="center", va="center", fontsize=9,
                    color="white" if (np.nan_to_num(rates[i, j]) < 0.6) else "black")
    ax.set_title(title)
    ax.figure.colorbar(image, ax=ax, label="final pass rate")


def final_pass(summary: LogSummary) -> Figure:
    """Final pass by level × trip length over the last tenth of training."""
    fig, axes = _figure(1, 1, (6.5, 4.2))
    levels, days, rates, counts = summary.final_pass()
    window = summary.final_window()
    span = f"steps {window[0]}–{window[-1]}" if window else "no steps"
    _heatmap(axes[0][0], levels, days, rates, counts, f"final pass by level × trip length ({span})")
    return fig


DRAW = {"failure_modes": failure_modes, "failure_groups": failure_groups, "reward": reward, "exploit": exploit,
        "planpo": planpo, "final_pass": final_pass}


def draw_all(summary: LogSummary) -> dict[str, Figure]:
    """Every report figure that the log has data for (PlanPO needs advantage records)."""
    figures = {}
    for name in FIGURES:
        if name == "planpo" and not len(summary.step_numbers("advantage")):
            continue
        figures[name] = DRAW[name](summary)
    return figures


# --- one submission (``planshape evaluate --plots DIR``) -----------------------------------------------------


def submission_figures(report: Mapping[str, Any]) -> dict[str, Figure]:
    """Per-constraint outcomes and final pass by level × trip length of one evaluated submission."""
    fig, axes = _figure(1, 1, (10, 5.5))
    ax = axes[0][0]
    table = report["per_constraint"]
    keys = [c.key for c in (*COMMONSENSE, *HARD) if c.key in table] + \
        [k for k in table if k not in LABELS]
    totals = np.array([max(1, sum(table[k].values())) for k in keys], dtype=np.float64)
    left = np.zeros(len(keys))
    colours = {"pass": "seagreen", "fail": "crimson", "n/a": "0.75", "not checked": "0.5"}
    y = np.arange(len(keys))
    for status, colour in colours.items():
        share = np.array([table[k].get(status, 0) for k in keys], dtype=np.float64) / totals
        for bar in ax.barh(y, share, left=left, color=colour, label=status):
            bar.set_gid(status)
        left += share
    ax.set_yticks(y, [f"{LABELS.get(k, k)} ({'cs' if i < 8 else 'hard'})" for i, k in enumerate(keys)])
    ax.invert_yaxis()
    ax.axhline(7.5, color="black", linewidth=0.8)
    ax.set(xlim=(0, 1), xlabel="share of plans",
           title=f"per-constraint outcome ({report.get('mode', '?')} mode, {len(report.get('plans', []))} plans)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    out = {"per_constraint": fig}
    rows = report.get("breakdown") or []
    if rows:
        levels = [lv for lv in ("easy", "medium", "hard") if any(r["level"] == lv for r in rows)]
        levels += sorted({r["level"] for r in rows} - set(levels))
        days = sorted({r["days"] for r in rows})
        counts = np.zeros((len(levels), len(days)))
        passed = np.zeros((len(levels), len(days)))
        for r in rows:
            i, j = levels.index(r["level"]), days.index(r["days"])
            counts[i, j] += r["plans"]
            passed[i, j] += r["final_pass"]
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = passed / counts
        fig2, axes2 = _figure(1, 1, (6.5, 4.2))
        _heatmap(axes2[0][0], levels, days, rates, counts, "final pass by level × trip length")
        out["final_pass"] = fig2
    return out
