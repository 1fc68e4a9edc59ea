"""Why a query has no plan: the constraint that rules every plan out, found by the model itself.

Only called once the model proved no plan exists. Each reason is a proof too: the budget's (the cheapest plan
without the budget, solved to optimality, costs more), a day with no leg at all, or the one query constraint
whose removal lets the model find a plan (house rule, room type, cuisine, transportation rule; or several of
them together). What is left is the shape of the trip: no ``n`` cities of the state join up on the dates.
"""

from __future__ import annotations

from ..query import Query
from ..store.sandbox import SandboxStore
from .candidates import Candidates, build
from .clock import Clock
from .model import PlanModel

RELAXABLE = (("house rule", "house_rule"), ("room type", "room_type"), ("cuisine", "cuisine"),
             ("transportation rule", "transportation"))


def explain(candidates: Candidates, clock: Clock, store: SandboxStore, budget: bool,
            time_limit: float) -> tuple[str, str]:
    """``(code, reason)`` for a query the model proved has no plan (within its budget when ``budget``)."""
    query = candidates.query
    if budget:
        status, choice = PlanModel(candidates, None, time_limit).solve()
        if choice is not None:
            exact = "costs" if status == "optimal" else "costs more than the budget; one found costs"
            return "budget", (f"the cheapest plan {exact} {choice.cost:g}, over the budget {query.budget:g} "
                              f"({query.people_number} {'person' if query.people_number == 1 else 'people'})")
    for day in (0, query.days - 1):
        if not any(leg.day == day for leg in candidates.legs):
            return _no_leg(candidates, store, day)
    relaxed = [(label, key) for label, key in RELAXABLE if getattr(query.local_constraint, key)]
    for label, key in relaxed:
        if _feasible(_without(query, key), store, time_limit):
            return label, f"no plan meets the {label} {_value(query, key)}; without it one exists"
    if len(relaxed) > 1 and _feasible(_without(query, *[k for _, k in relaxed]), store, time_limit):
        labels = " and ".join(label for label, _ in relaxed)
        return "constraints", f"no plan meets the {labels} together; without them one exists"
    return "route", _route(candidates)


def explain_hosts(candidates: Candidates, store: SandboxStore) -> tuple[str, str]:
    """Too few cities can host a stay: is it the house rule, the room type, or both (the listings they allow)?"""
    query, reason = candidates.query, candidates.reason or ""
    asked = [(label, key) for label, key in RELAXABLE[:2] if getattr(query.local_constraint, key)]
    for label, key in asked:
        if build(store, _without(query, key)).reason is None:
            return label, f"{reason}; without the {label} there are enough"
    if len(asked) == 2 and build(store, _without(query, "house_rule", "room_type")).reason is None:
        return "constraints", f"{reason}; without the house rule and the room type there are enough"
    return candidates.code or "cities", reason


def _without(query: Query, *keys: str) -> Query:
    return query.model_copy(update={"local_constraint": query.local_constraint.model_copy(
        update=dict.fromkeys(keys))})


def _value(query: Query, key: str) -> str:
    value = getattr(query.local_constraint, key)
    return ", ".join(value) if isinstance(value, list) else repr(value)


def _feasible(query: Query, store: SandboxStore, time_limit: float) -> bool:
    candidates = build(store, query, Clock(query, store))
    if candidates.reason is not None:
        return False
    return PlanModel(candidates, None, time_limit).solve()[1] is not None


def _no_leg(candidates: Candidates, store: SandboxStore, day: int) -> tuple[str, str]:
    """No flight, drive or taxi on the first (or last) day: which, and whether the transportation rule is why."""
    query = candidates.query
    cities = [c.name for c in candidates.cities]
    where = cities[0] if len(cities) == 1 else f"any of the {len(cities)} cities of {query.dest}"
    date = query.date[day] if day < len(query.date) else "its date"
    route = f"from {query.org} to {where}" if day == 0 else f"from {where} back to {query.org}"
    rule = query.local_constraint.transportation
    if rule is not None and any(leg.day == day for leg in build(store, _without(query, "transportation")).legs):
        return "transportation rule", f"under {rule!r} nothing goes {route} on {date}"
    road = "no road the distance table can charge"
    if len(cities) == 1:
        ends = (query.org, cities[0]) if day == 0 else (cities[0], query.org)
        row = store.distance(*ends)
        if row is not None and row.duration is not None and "day" in row.duration:
            road = f"the road takes {row.duration} (a drive of a day or more has no charge)"
        elif row is None:
            road = "no road in the distance table"
    return "transport", f"nothing goes {route} on {date}: no flight that day, and {road}"


def _route(candidates: Candidates) -> str:
    query = candidates.query
    n = query.visiting_city_number
    hosts = [c.name for c in candidates.cities if c.name in candidates.stays or c.day_trips]
    return (f"no {n} of the {len(candidates.cities)} cities that can host a stay join up in {query.days} days "
            f"(legs on the dates, minimum nights, a sight for each stay day: {len(hosts)} cities have sights in reach)")
