"""Solve one query: a witness plan that passes every strict check, or why none exists.

The candidates (``candidates.build``) filter the database exactly; the CP-SAT model (``model.PlanModel``) finds
the cheapest plan within the budget; the plan is written (``witness.write_plan``), timed day after day by the
check's own clock (a late chain of days is cut from the model and it is solved again), then checked in strict mode
through both formats. A witness the checks refuse is a bug (in the solver or in a check) and is reported as
``status="refused"`` with the failing verdicts, never written as solved.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..plan.answer import answer_text
from ..query import Query
from ..store.sandbox import SandboxStore
from .candidates import Candidates, build
from .clock import Clock
from .model import PlanModel
from .reasons import explain, explain_hosts
from .witness import late_chain, verify, write_plan

MAX_CUTS = 50


@dataclass
class Solution:
    """What ``solve`` found for one query.

    ``status``: ``solved`` (``plan`` and ``answer`` pass strict), ``infeasible`` (``reason`` names what rules every
    plan out, ``code`` its kind), ``unknown`` (the time limit ran out first) or ``refused`` (a bug: the checks refuse
    the witness; ``failures`` say why). ``cost`` is the witness's total as the budget check counts it; ``optimal``
    says it is the cheapest plan there is.
    """

    status: str
    seconds: float
    cost: float | None = None
    optimal: bool = False
    plan: list[dict[str, Any]] | None = None
    answer: list[dict[str, Any]] | None = None
    reason: str = ""
    code: str = ""
    failures: list[str] = field(default_factory=list)
    cuts: int = 0
    cpu_seconds: float = 0.0

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def answer_text(self) -> str | None:
        """The witness as a model's final answer: ``<answer>[...]</answer>``."""
        return None if self.answer is None else answer_text(self.answer)


OBJECTIVES = ("cost", "rich")


def solve(query: Query, store: SandboxStore, budget: bool = True, time_limit: float = 60.0,
          reasons: bool = True, objective: str = "cost") -> Solution:
    """The cheapest plan for ``query`` that passes strict (within its budget unless ``budget`` is False), or why
    there is none (``reasons=False``: only the kind of reason a first look gives, without solving relaxations).

    ``objective``: ``cost`` (the cheapest plan), or ``rich``: as many travel-day meals and sights (up to
    ``RICH_SIGHTS`` a stay day) as the days fit, the cheapest such plan; both find a plan exactly when one exists.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; choose one of {OBJECTIVES}")
    started = time.perf_counter()
    clock = Clock(query, store)
    candidates = build(store, query, clock, rich=objective == "rich")
    if candidates.reason is not None:
        code, reason = candidates.code or "", candidates.reason
        if code == "cities" and reasons:
            code, reason = explain_hosts(candidates, store)
        return Solution("infeasible", time.perf_counter() - started, reason=reason, code=code)
    solution = _solve(candidates, clock, store, query.budget if budget else None, time_limit)
    if solution.status == "infeasible":
        solution.code, solution.reason = explain(candidates, clock, store, budget, time_limit) if reasons \
            else ("no plan", "the model has no plan (reasons not asked for)")
    solution.seconds = time.perf_counter() - started
    return solution


def _solve(candidates: Candidates, clock: Clock, store: SandboxStore, budget: float | None,
           time_limit: float) -> Solution:
    query = candidates.query
    model = PlanModel(candidates, budget, time_limit)
    for cuts in range(MAX_CUTS + 1):
        status, choice = model.solve()
        if choice is None:
            return Solution(status, 0.0, cuts=cuts)
        plan = write_plan(candidates, choice)
        if late_chain(clock, plan) is not None:
            model.cut(choice)
            continue
        checked = verify(plan, query, store, choice.cost)
        if checked.failures:
            return Solution("refused", 0.0, checked.cost, choice.optimal, plan, checked.structured,
                            failures=checked.failures, cuts=cuts)
        return Solution("solved", 0.0, checked.cost, choice.optimal, plan, checked.structured, cuts=cuts)
    return Solution("unknown", 0.0, reason=f"more than {MAX_CUTS} late chains of days were cut", cuts=MAX_CUTS)

