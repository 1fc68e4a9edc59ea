"""Score a rollouts file into rewards and advantages, per trajectory and per turn (``planshape score``).

One JSON object per line: ``group`` (the task / prompt id), ``trajectory``, ``turn_tokens`` (generated tokens
of each assistant turn), ``text`` (the final output) and ``query`` (a TravelPlanner record).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from .advantages import Rollouts
from .reward import Scorer, failure_counts


def read_rollouts(path: str | Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = {"group", "turn_tokens", "text", "query"} - set(row)
        if missing:
            raise ValueError(f"{path}: line {number}: missing {sorted(missing)}")
        rows.append(row)
    return rows


def score_rollouts(rows: Sequence[Mapping[str, Any]], scorer: Scorer, estimator, step: int = 0,
                   **options: Any) -> dict[str, Any]:
    """Rewards, success flags and advantages of every trajectory and turn in the file."""
    scored = [scorer.score(row["text"], row["query"], step) for row in rows]
    rollouts = Rollouts.build([row["group"] for row in rows], [s.reward for s in scored],
                              [scorer.success(s) for s in scored], [row["turn_tokens"] for row in rows])
    adv = estimator(rollouts, **options)
    bounds = np.cumsum(rollouts.turns)
    per_turn = np.split(adv.per_turn, bounds[:-1])
    turn_part = np.split(adv.turn, bounds[:-1])
    trajectories = []
    for i, (row, s) in enumerate(zip(rows, scored, strict=True)):
        trajectories.append({
            "group": row["group"], "trajectory": row.get("trajectory", i), "turns": int(rollouts.turns[i]),
            "tokens": int(sum(row["turn_tokens"])), "reward": s.reward, "success": bool(rollouts.success[i]),
            "components": s.components, "failure": s.failure, "reason": s.reason,
            "advantage_trajectory": float(adv.trajectory[i]),
            "advantage_turns": [float(x) for x in per_turn[i]], "length_term": [float(x) for x in turn_part[i]],
        })
    return {"step": step, "stage": scorer.schedule.stage(step).name, "schedule": scorer.schedule.name,
            "mode": scorer.mode.name, "alpha": adv.alpha, "trajectories": trajectories,
            "failures": dict(failure_counts(scored))}


def print_rollouts(report: Mapping[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title=f"rewards and advantages — step {report['step']} ({report['schedule']}: {report['stage']}), "
                        f"mode {report['mode']}, α = {report['alpha']:.3g}", title_justify="left")
    for col in ("group", "#", "T", "reward", "pass", "A_traj", "A min", "A max", "failure"):
        table.add_column(col, justify="left" if col in ("group", "failure") else "right")
    for t in report["trajectories"]:
        turns = t["advantage_turns"] or [0.0]
        failure = (t["failure"] or "-").replace("commonsense:", "cs:")
        table.add_row(str(t["group"]), str(t["trajectory"]), str(t["turns"]), f"{t['reward']:.3f}",
                      "yes" if t["success"] else "no", f"{t['advantage_trajectory']:+.3f}", f"{min(turns):+.3f}",
                      f"{max(turns):+.3f}", failure)
    console.print(table)
    console.print("failures: " + ", ".join(f"{k} × {v}" for k, v in sorted(report["failures"].items())))
