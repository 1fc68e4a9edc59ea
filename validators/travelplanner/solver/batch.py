"""Solve many queries, in order, on one or several processes (each solve is one CP-SAT thread), and the line of a
solutions file each gives."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator, Sequence
from typing import Any

from ..query import Query
from ..store.sandbox import SandboxStore
from .solution import Solution, solve

_STORE: SandboxStore | None = None
_SETTINGS: dict[str, Any] = {}


def _init(store: SandboxStore, settings: dict[str, Any]) -> None:
    global _STORE, _SETTINGS
    _STORE, _SETTINGS = store, settings


def _one(query: Query) -> Solution:
    assert _STORE is not None
    started = time.process_time()
    solution = solve(query, _STORE, **_SETTINGS)
    solution.cpu_seconds = time.process_time() - started
    return solution


def solve_all(queries: Sequence[Query], store: SandboxStore, jobs: int = 1, budget: bool = True,
              time_limit: float = 60.0, objective: str = "cost") -> Iterator[Solution]:
    """The solution of every query, in the queries' order; ``jobs`` processes (forked: the store is shared)."""
    settings = {"budget": budget, "time_limit": time_limit, "objective": objective}
    if jobs <= 1 or len(queries) <= 1:
        _init(store, settings)
        yield from map(_one, queries)
        return
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs, initializer=_init, initargs=(store, settings)) as pool:
        yield from pool.imap(_one, queries, chunksize=1)


def solution_line(index: int, query: Query, solution: Solution) -> dict[str, Any]:
    """One line of a solutions file: ``planshape evaluate`` reads its ``plan`` (null when none exists)."""
    return {"idx": index, "status": solution.status, "code": solution.code, "reason": solution.reason,
            "cost": solution.cost, "budget": query.budget, "optimal": solution.optimal,
            "seconds": round(solution.seconds, 4), "cpu_seconds": round(solution.cpu_seconds, 4),
            "failures": solution.failures, "plan": solution.plan, "answer": solution.answer}
