"""Score a rollouts file into rewards and advantages, per trajectory and per turn (``planshape score``).

One JSON object per line: ``group`` (the task / prompt id), ``trajectory``, ``turn_tokens`` (generated tokens
of each assistant turn), ``text`` (the final output) and ``query`` (a TravelPlanner record).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from planshape.validators.travelplanner.jsonl import kind, read_jsonl
from rich.console import Console
from rich.table import Table

from .advantages import Rollouts
from .reward import failure_counts

if TYPE_CHECKING:
    from .facade import Shaper


def read_rollouts(path: str | Path) -> list[dict[str, Any]]:
    """Every rollout of the file; a malformed line raises ValueError naming the file, the line and why."""
    rows = []
    for line in read_jsonl(path):
        problem = line.error or _problem(line.value)
        if problem:
            raise ValueError(f"{path}: line {line.number}: {problem}")
        rows.append(line.value)
    return rows


def _problem(row: Any) -> str | None:
    """What is wrong with one rollout record, or None. ``text`` is model output: the scorer takes any value."""
    if not isinstance(row, dict):
        return f"{kind(row)}, not an object"
    missing = {"group", "turn_tokens", "text", "query"} - set(row)
    if missing:
        return f"missing {sorted(missing)}"
    if not isinstance(row["group"], (str, int)) or isinstance(row["group"], bool):
        return f"'group' is {kind(row['group'])}, not a string or an integer"
    tokens = row["turn_tokens"]
    if not isinstance(tokens, list) or not all(type(t) is int and t >= 0 for t in tokens):
        return "'turn_tokens' must be an array of token counts (integers >= 0), one per assistant turn"
    if not isinstance(row["query"], dict):
        return f"'query' is {kind(row['query'])}, not an object"
    return None


def score_rollouts(rows: Sequence[Mapping[str, Any]], shaper: Shaper, step: int = 0) -> dict[str, Any]:
    """Rewards, success flags and advantages of every trajectory and turn in the file, through the facade: the
    same scores, success rule and estimator (α included) a trainer gets from ``shaper``."""
    scored = shaper.score_batch([row["text"] for row in rows], [row["query"] for row in rows], step)
    rollouts = Rollouts.build([row["group"] for row in rows], [s.reward for s in scored],
                              [s.success for s in scored], [row["turn_tokens"] for row in rows])
    adv = shaper.estimate(rollouts, step)
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
    schedule = shaper.scorer.schedule
    return {"step": step, "stage": schedule.stage(step).name, "schedule": schedule.name,
            "mode": shaper.config.mode, "alpha": adv.alpha, "trajectories": trajectories,
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
