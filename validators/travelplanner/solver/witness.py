"""A model's choice written as a plan (upstream day dicts and the Planner-R1 structured answer), and the project's
own strict checks run on it before anyone sees it.

Restaurants and sights of one city are interchangeable to every check, so each city's are handed out in order:
the meals of its days in day order (breakfast, lunch, dinner), its sights likewise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..checks.hard import total_cost
from ..checks.modes import STRICT
from ..checks.trip import Trip
from ..checks.verdicts import PlanResult, Status, check_plan
from ..plan.answer import answer_text
from ..plan.formats import from_upstream, gate
from ..query import Query
from ..store.sandbox import SandboxStore
from .candidates import Candidates, place_text
from .clock import FROM, MEALS, NO_MEALS, Clock, fresh
from .model import Choice, cheapest_restaurants


def write_plan(candidates: Candidates, choice: Choice) -> list[dict[str, Any]]:
    """The upstream day dicts of ``choice``."""
    query = candidates.query
    cities = {c.name: c for c in candidates.cities}
    meals: dict[str, list[str]] = {}
    for name, count in choice.lodging_nights.items():
        rows = choice.restaurants.get(name) or cheapest_restaurants(cities[name], 3 * (count - 1))
        meals[name] = [place_text(r.name, name) for r in rows]
    sights = {name: [place_text(a.name, name) for a in rows]
              for name, rows in ({c.name: c.attractions for c in candidates.cities} | candidates.sights).items()}
    extra = dict(choice.extra_sights)
    plan: list[dict[str, Any]] = []
    for day in range(query.days):
        unit: dict[str, Any] = {"days": day + 1}
        leg = choice.legs.get(day)
        if leg is not None:
            unit["current_city"] = f"from {leg.origin} to {leg.destination}"
            unit["transportation"] = leg.text
            pattern = choice.meals.get(day, NO_MEALS)
            for meal, side in zip(MEALS, pattern, strict=True):
                unit[meal] = "-" if side is None else meals[leg.origin if side == FROM else leg.destination].pop(0)
            unit["attraction"] = "-"
        else:
            city = choice.nights[day]
            unit["current_city"] = city
            unit["transportation"] = "-"
            for meal in MEALS:
                unit[meal] = meals[city].pop(0)
            seen = [sights[choice.day_trips.get(day, city)].pop(0)]
            if day not in choice.day_trips and extra.get(city):  # the rich objective's further sights
                more = min(extra[city], cities[city].most_sights - 1)
                seen += [sights[city].pop(0) for _ in range(more)]
                extra[city] -= more
            unit["attraction"] = "".join(f"{s};" for s in seen)
        if day < query.days - 1:
            night = choice.nights[day]
            unit["accommodation"] = place_text(cities[night].lodging[choice.lodging_nights[night]].row.name, night)
        else:
            unit["accommodation"] = "-"
        plan.append({k: unit[k] for k in ("days", "current_city", "transportation", "breakfast", "attraction",
                                          "lunch", "dinner", "accommodation")})
    return plan


def late_chain(clock: Clock, plan: list[dict[str, Any]]) -> tuple[int, int] | None:
    """``(first, last)``: the days whose chain of late starts leaves day ``last`` no schedule, or None when every
    day fits the clock. ``first`` is the last day before it that starts at 00:00 (the model's every day fits from
    then, so a day that does not fit started late)."""
    start, first = fresh(0), 0
    for day, unit in enumerate(plan):
        if start <= fresh(day):
            first = day
        carry = clock.carry(day, unit, start)
        if carry is None:
            return first, day
        start = carry
    return None


@dataclass(frozen=True)
class Checked:
    """The strict verdicts of a witness, through both formats."""

    result: PlanResult
    structured: list[dict[str, Any]]
    failures: list[str]
    cost: float  # what the budget check charges the plan


def verify(plan: list[dict[str, Any]], query: Query, store: SandboxStore, cost: float | None = None) -> Checked:
    """Strict on the upstream day dicts and on the structured answer read back through the schema gate: every
    commonsense and hard check must pass (a hard check the query does not ask is not applicable). ``cost``: what
    the model says the plan costs, which must be what the budget check charges."""
    structured = from_upstream(plan)
    charged = total_cost(Trip(query, plan, store, STRICT))
    failures = [] if cost is None or abs(charged - cost) < 1e-6 else \
        [f"the model costs the plan {cost:g}, the budget check charges {charged:g}"]
    for label, days in (("day dicts", plan), ("structured answer", None)):
        if days is None:
            gated = gate(answer_text(structured).removeprefix("<answer>").removesuffix("</answer>"))
            if not gated.ok:
                failures.append(f"{label}: schema: {gated.reason}")
                continue
            days = gated.plan
        result = check_plan(days, query, store, mode="strict")
        verdicts = {**result.commonsense, **(result.hard or {})}
        failures += [f"{label}: {key}: {v.reason}" for key, v in verdicts.items() if v.status is Status.FAIL]
        if result.hard is None:
            failures.append(f"{label}: hard checks not run ({result.note})")
    return Checked(result, structured, failures, charged)
