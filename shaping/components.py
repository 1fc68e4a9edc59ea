"""Planner-R1's reward components of one checked plan, and the countable failure categories.

A module of its own so that the reward, the built-in plugin and the facade can all use them without an
import circle (``reward`` -> ``plugins`` -> ``builtin`` -> ``reward``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Protocol

from planshape.validators.travelplanner.checks.verdicts import PlanResult, Status
from planshape.validators.travelplanner.query import Query

# Metric names, identical in every trainer's log (``observe.metric_names`` prefixes them).
COMPONENTS = ("schema", "cs_micro", "hard_micro", "cs_macro", "hard_macro", "pass")

# Failure categories that do not name a check. A check's own category is "commonsense:<key>" / "hard:<key>".
NO_ANSWER = "no_answer"  # no answer block in the output
SCHEMA = "schema"  # the answer failed the JSON-schema gate
HARD_NOT_RUN = "hard_not_run"  # Complete Information or Within Sandbox failed, so upstream runs no hard check
ERROR = "error"  # a plugin or checker raised on this output
TIMEOUT = "timeout"  # scoring ran past its time budget
CRASH = "crash"  # the process scoring it died
PASSED = "pass"  # how a passing sample is counted (its ``failure`` is "")


def plan_components(result: PlanResult, query: Query) -> dict[str, float]:
    """The four rates and ``pass`` of one checked plan (the schema component is the gate's).

    Hard checks that did not run (Complete Information or Within Sandbox failed) count as failed, as in the
    official metrics; the macros are 1 when their micro is 1; ``pass`` = both macros.
    """
    cs = [v for v in result.commonsense.values() if v.status is not Status.NA]
    cs_micro = sum(v.passed for v in cs) / len(cs) if cs else 0.0
    if result.hard is not None:
        hard = [v for v in result.hard.values() if v.status is not Status.NA]
        hard_micro = sum(v.passed for v in hard) / len(hard) if hard else 1.0
    else:
        hard_micro = 0.0
    cs_macro = float(result.delivered and cs_micro == 1.0)
    hard_macro = float(result.hard is not None and hard_micro == 1.0)
    return {"cs_micro": cs_micro, "hard_micro": hard_micro, "cs_macro": cs_macro, "hard_macro": hard_macro,
            "pass": cs_macro * hard_macro}


def first_failure(result: PlanResult) -> tuple[str, str]:
    """The failure category ("commonsense:<key>", "hard:<key>", "hard_not_run") and its reason; ("", "") if none."""
    for key, verdict in result.commonsense.items():
        if verdict.status is Status.FAIL:
            return f"commonsense:{key}", verdict.reason
    if result.hard is None:
        return HARD_NOT_RUN, result.note
    for key, verdict in result.hard.items():
        if verdict.status is Status.FAIL:
            return f"hard:{key}", verdict.reason
    return "", ""


def failure_categories(commonsense_keys: Iterable[str], hard_keys: Iterable[str]) -> tuple[str, ...]:
    """Every category a sample can be counted under, for a fixed metric key set (``pass`` first)."""
    return (PASSED, NO_ANSWER, SCHEMA, *(f"commonsense:{k}" for k in commonsense_keys), HARD_NOT_RUN,
            *(f"hard:{k}" for k in hard_keys), ERROR, TIMEOUT, CRASH)


class _Failed(Protocol):
    @property
    def failure(self) -> str: ...


def failure_counts(results: Iterable[_Failed]) -> Counter:
    """How often each failure category occurred: the countable reasons for a trainer's log."""
    return Counter(r.failure or PASSED for r in results)
