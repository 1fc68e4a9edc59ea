"""The official TravelPlanner metrics (upstream ``eval.py``), with its fixed denominators.

Only the 13 official checks count toward these numbers; checks added by plugins are reported per
constraint but never change a published metric.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..checks.registry import COMMONSENSE, HARD
from ..checks.verdicts import PlanResult, Status
from ..query import Query

# Metric name -> upstream printed name. These names are used in every report and trainer log.
METRIC_LABELS = {
    "delivery_rate": "Delivery Rate",
    "commonsense_micro": "Commonsense Constraint Micro Pass Rate",
    "commonsense_macro": "Commonsense Constraint Macro Pass Rate",
    "hard_micro": "Hard Constraint Micro Pass Rate",
    "hard_macro": "Hard Constraint Macro Pass Rate",
    "final_pass_rate": "Final Pass Rate",
}
# Upstream hard-codes the hard-micro denominator per split (issue #16).
SPLIT_HARD_DENOMINATOR = {"train": 105, "validation": 420, "test": 2290}
SPLIT_SIZE = {"train": 45, "validation": 180, "test": 1000}
CS_KEYS = tuple(c.key for c in COMMONSENSE)
HARD_KEYS = tuple(c.key for c in HARD)


def hard_denominator(queries: Sequence[Query], split: str | None = None) -> int:
    """Fixed for an official split; otherwise N plus the number of local constraints that are set."""
    if split is not None:
        if split not in SPLIT_HARD_DENOMINATOR:
            raise ValueError(f"unknown split {split!r}; choose one of {sorted(SPLIT_HARD_DENOMINATOR)} or none")
        if len(queries) != SPLIT_SIZE[split]:
            raise ValueError(f"split {split!r} has {SPLIT_SIZE[split]} queries, got {len(queries)}")
        return SPLIT_HARD_DENOMINATOR[split]
    return len(queries) + sum(q.local_constraint.count() for q in queries)


def _true(verdicts: dict | None, keys: Sequence[str]) -> int:
    if not verdicts:
        return 0
    return sum(1 for k in keys if k in verdicts and verdicts[k].status is Status.PASS)


def compute_metrics(queries: Sequence[Query], results: Sequence[PlanResult], split: str | None = None) -> dict:
    """The six official rates plus their numerators and denominators."""
    if len(queries) != len(results):
        raise ValueError(f"{len(queries)} queries but {len(results)} results")
    n = len(queries)
    if n == 0:
        raise ValueError("no queries to score")
    hard_den = hard_denominator(queries, split)
    counts = {
        "delivery_rate": sum(r.delivered for r in results),
        "commonsense_micro": sum(_true(r.commonsense, CS_KEYS) for r in results),
        "commonsense_macro": sum(r.hard is not None and r.commonsense_pass for r in results),
        "hard_micro": sum(_true(r.hard, HARD_KEYS) for r in results),
        "hard_macro": sum(r.hard_pass for r in results),
        "final_pass_rate": sum(r.final_pass for r in results),
    }
    denominators = {k: n for k in counts} | {"commonsense_micro": len(CS_KEYS) * n, "hard_micro": hard_den}
    return {
        "rates": {k: counts[k] / denominators[k] for k in counts},
        "numerators": counts,
        "denominators": denominators,
    }


def per_constraint(results: Sequence[PlanResult]) -> dict[str, dict[str, int]]:
    """For each check: how many plans passed, failed, were not applicable, or were not checked."""
    table: dict[str, Counter] = {}
    for r in results:
        for key in CS_KEYS + HARD_KEYS:
            table.setdefault(key, Counter())
        for group in (r.commonsense, r.hard or {}):
            for key, verdict in group.items():
                table.setdefault(key, Counter())[verdict.status.value] += 1
        missing = [k for k in CS_KEYS if k not in r.commonsense] + ([] if r.hard else list(HARD_KEYS))
        for key in missing:
            table[key]["not checked"] += 1
    return {k: {s: c[s] for s in ("pass", "fail", "n/a", "not checked")} for k, c in table.items()}


def breakdown(queries: Sequence[Query], results: Sequence[PlanResult]) -> list[dict[str, Any]]:
    """Counts per (level, trip length), as upstream prints them."""
    groups: dict[tuple[str, int], list[PlanResult]] = {}
    for q, r in zip(queries, results, strict=True):
        groups.setdefault((q.level, q.days), []).append(r)
    rows = []
    for (level, days), rs in sorted(groups.items(), key=lambda kv: (_level_order(kv[0][0]), kv[0][1])):
        rows.append({
            "level": level,
            "days": days,
            "plans": len(rs),
            "delivered": sum(r.delivered for r in rs),
            "commonsense_pass": sum(r.hard is not None and r.commonsense_pass for r in rs),
            "hard_pass": sum(r.hard_pass for r in rs),
            "final_pass": sum(r.final_pass for r in rs),
            "checks": {k: sum(1 for r in rs if k in (r.commonsense | (r.hard or {}))
                             and (r.commonsense | (r.hard or {}))[k].passed) for k in CS_KEYS + HARD_KEYS},
        })
    return rows


def _level_order(level: str) -> int:
    return {"easy": 0, "medium": 1, "hard": 2}.get(level, 3)
