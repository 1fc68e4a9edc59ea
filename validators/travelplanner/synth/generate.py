"""Synthesize queries, each kept only with a witness plan from the solver.

Per level, attempts 0, 1, 2, ... each draw a query (``fields.draw`` with a generator seeded by the seed, the level
and the attempt: the same attempt is the same query, on any number of processes) and solve it without a budget;
a query is kept when the solver finds its cheapest plan, with the budget set from that plan's cost with
``slack`` (rounded up to hundreds, as the benchmark's budgets are) and its text rendered. The witness is checked
again in strict mode against the final query before the record is written; it is the record's
``annotated_plan``, as the train split's gold plan is.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..query import Query
from ..solver.solution import Solution, solve
from ..solver.witness import verify
from ..store.sandbox import SandboxStore
from .fields import LEVELS, Fields, draw, flight_rows
from .phrasing import render

PLACEHOLDER_BUDGET = 1e9  # the query is solved without a budget: its witness sets it
BATCH = 32
MAX_ATTEMPTS = 200  # per query asked for: a database where almost nothing is plannable fails with a clear error
STALE = 2000  # attempts in a row that draw no query not tried before: the level's trips are used up (a small
# flights table starts few: the shared one's 313 flights start 168 distinct easy trips), so it stops and says so


@dataclass
class Kept:
    """A synthesized query's record and its witness."""

    record: dict[str, Any]
    answer: list[dict[str, Any]]
    attempt: int
    seconds: float
    cpu_seconds: float


@dataclass
class Tally:
    """What a level's attempts came to."""

    kept: int = 0
    attempts: int = 0
    no_trip: int = 0  # the drawn flight could not start a trip of that shape
    duplicate: int = 0
    infeasible: dict[str, int] = field(default_factory=dict)  # no witness, by the solver's reason
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)


def parse_mix(text: str) -> dict[str, float]:
    """``easy=0.34,medium=0.33,hard=0.33`` -> shares that add up to 1 (a level left out gets none)."""
    shares: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in LEVELS:
            raise ValueError(f"--mix: {part!r} is not LEVEL=SHARE with LEVEL one of {', '.join(LEVELS)}")
        try:
            shares[name] = float(value)
        except ValueError:
            raise ValueError(f"--mix: {value!r} is not a number") from None
        if not shares[name] >= 0:
            raise ValueError(f"--mix: the share of {name} is negative")
    total = sum(shares.values())
    if total <= 0:
        raise ValueError("--mix: the shares add up to 0")
    return {name: shares.get(name, 0.0) / total for name in LEVELS}


def counts(n: int, mix: dict[str, float]) -> dict[str, int]:
    """``n`` split by ``mix`` (largest remainders, ties to the earlier level)."""
    raw = {name: n * share for name, share in mix.items()}
    out = {name: math.floor(v) for name, v in raw.items()}
    for name in sorted(raw, key=lambda k: (out[k] - raw[k], LEVELS.index(k)))[: n - sum(out.values())]:
        out[name] += 1
    return out


def budget_of(cost: float, slack: float) -> int:
    """The witness's cost with ``slack`` (0.1: 10 % more), rounded up to hundreds."""
    return max(100, math.ceil(cost * (1 + slack) / 100 - 1e-9) * 100)


_STORE: SandboxStore | None = None
_OBJECTIVE = "cost"


def _init(store: SandboxStore, objective: str) -> None:
    global _STORE, _OBJECTIVE
    _STORE, _OBJECTIVE = store, objective


def _solve(fields: Fields) -> tuple[Solution, float]:
    assert _STORE is not None
    started = time.process_time()
    solution = solve(Query.from_record(fields.record(PLACEHOLDER_BUDGET)), _STORE, budget=False, reasons=False,
                     objective=_OBJECTIVE)
    return solution, time.process_time() - started


def synthesize(store: SandboxStore, n: int, mix: dict[str, float], seed: int = 0, slack: float = 0.1,
               jobs: int = 1, progress: Callable[[Kept | None, dict[str, Tally]], None] | None = None,
               objective: str = "cost") -> tuple[list[Kept], dict[str, Tally]]:
    """``n`` queries in ``mix`` (level -> share), each with its witness; the same ``seed`` gives the same queries.
    ``progress`` is told each attempt's outcome (a kept query, or None); ``objective``: the witnesses' (``solve``)."""
    flights = flight_rows(store)
    wanted = counts(n, mix)
    tallies = {name: Tally() for name in LEVELS}
    kept: list[Kept] = []
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_init, initargs=(store, objective)) \
        if jobs > 1 else None
    _init(store, objective)
    try:
        for level_index, level in enumerate(LEVELS):
            tally, fresh = tallies[level], 0
            for attempt, fields, outcome in _attempts(store, level, level_index, seed, flights, wanted[level],
                                                      tally, pool, jobs):
                tally.attempts = attempt + 1
                if fields is None:
                    tally.no_trip += 1
                elif outcome is None:  # the same query as an earlier attempt: not solved again
                    tally.duplicate += 1
                else:
                    fresh = attempt
                    solution, cpu = outcome
                    tally.seconds.append(solution.seconds)
                    tally.cpu_seconds.append(cpu)
                    record = _keep(store, fields, solution, slack, seed, level_index, attempt)
                    if record is None:
                        key = solution.code or solution.status
                        tally.infeasible[key] = tally.infeasible.get(key, 0) + 1
                    else:
                        tally.kept += 1
                        kept.append(Kept(record, solution.answer or [], attempt, solution.seconds, cpu))
                        if progress is not None:
                            progress(kept[-1], tallies)
                        if tally.kept == wanted[level]:
                            break
                        continue
                if progress is not None:
                    progress(None, tallies)
                if attempt - fresh >= STALE:
                    raise ValueError(f"only {tally.kept} {level} queries of {wanted[level]} have a plan: the last "
                                     f"{STALE} of {tally.attempts} attempts drew no {level} query not tried before, so "
                                     "this database's flights start no more such trips; ask fewer (--n), another "
                                     "--mix, or a database with a larger flights table")
            if tally.kept < wanted[level]:
                raise ValueError(f"only {tally.kept} {level} queries of {wanted[level]} have a plan after "
                                 f"{tally.attempts} attempts: this database plans few of the trips its flights start")
    finally:
        if pool is not None:
            pool.terminate()
    for index, item in enumerate(kept):
        item.record["idx"] = index
    return kept, tallies


def _attempts(store: SandboxStore, level: str, level_index: int, seed: int, flights: int, wanted: int,
              tally: Tally, pool: Any, jobs: int
              ) -> Iterator[tuple[int, Fields | None, tuple[Solution, float] | None]]:
    """Each attempt's fields and solution, in attempt order, solved a batch at a time (in parallel with a pool; a
    batch about as large as what is still missing, so little is solved for nothing). A query drawn before (the same
    ``Fields.key``) is not solved again: its solution is None. Which attempts are kept does not depend on the
    batches: they are taken in attempt order."""
    tried: set[tuple] = set()
    first = 0
    while first < MAX_ATTEMPTS * max(wanted, 1):
        missing = wanted - tally.kept
        size = max(jobs, min(BATCH, missing + missing // 2 + 1))
        batch = [(a, draw(store, level, np.random.default_rng([seed, level_index, a]), flights))
                 for a in range(first, first + size)]
        first += size
        new: list[bool] = []
        todo: list[Fields] = []
        for _, fields in batch:
            new.append(fields is not None and fields.key() not in tried)
            if fields is not None and new[-1]:
                tried.add(fields.key())
                todo.append(fields)
        solved = iter(pool.map(_solve, todo) if pool is not None else map(_solve, todo))
        for (attempt, fields), fresh in zip(batch, new, strict=True):
            yield attempt, fields, (next(solved) if fresh else None)


def _keep(store: SandboxStore, fields: Fields, solution: Solution, slack: float, seed: int, level_index: int,
          attempt: int) -> dict[str, Any] | None:
    """The record of a solved query (budget from its witness, text rendered), its witness checked again against
    it; None when it has no witness."""
    if not solution.solved or solution.cost is None or solution.plan is None:
        return None
    budget = budget_of(solution.cost, slack)
    fields_of = fields.record(budget)
    level = fields_of.pop("level")
    record = {**fields_of, "query": render(fields, budget, np.random.default_rng([seed, level_index, attempt, 1])),
              "level": level}
    checked = verify(solution.plan, Query.from_record(record), store)
    if checked.failures:
        raise RuntimeError(f"a witness fails its own query (a solver bug): {checked.failures[:2]}")
    record["annotated_plan"] = [{k: v for k, v in record.items() if k != "query"}, solution.plan]
    return record
