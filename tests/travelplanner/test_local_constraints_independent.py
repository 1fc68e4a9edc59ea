"""The four local hard checks (house rule, room type, cuisine, transportation), pinned to plain implementations of
notes §5.2-§5.5 over the database CSVs (issue 30): every train gold plan under every value each constraint can take.

The gold plans keep their own constraints, so the replay set never fails these checks; asking each plan for
every house rule, room type, transport rule and cuisine gives both verdicts of each, from rows read with pandas.
"""

from __future__ import annotations

import pytest
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.query import LocalConstraint

from .test_budget_independent import PlainCosts, _fragment

HOUSE_RULES = ("smoking", "parties", "children under 10", "visitors", "pets")
ROOM_TYPES = {"shared room": "Shared room", "private room": "Private room", "entire room": "Entire home/apt"}
CUISINES = ("Chinese", "American", "Italian", "Mexican", "Indian", "Mediterranean", "French")


@pytest.fixture(scope="module")
def plain(shared_dir) -> PlainCosts:
    return PlainCosts(shared_dir / "database")


def _filled(value) -> bool:
    return value not in ("", "-", None)


def stays(plain: PlainCosts, plan, days):
    """The first matching row of every day's accommodation that has one."""
    rows = (plain.first(plain.rooms, "NAME", "city", day["accommodation"]) for day in plan[:days]
            if _filled(day.get("accommodation")))
    return [row for row in rows if row is not None]


def plain_room_rule(rows, rule: str) -> bool:
    return not any(f"No {rule}" in str(row["house_rules"]) for row in rows)


def plain_room_type(rows, wanted: str) -> bool:
    if wanted == "not shared room":
        return all(row["room type"] != "Shared room" for row in rows)
    return all(row["room type"] == ROOM_TYPES[wanted] for row in rows)


def plain_cuisine(plain: PlainCosts, plan, days, org: str, wanted: list[str]) -> bool:
    """Official: a meal in the origin city ends that day's scan (Q9)."""
    covered = set()
    for day in plan[:days]:
        for meal in ("breakfast", "lunch", "dinner"):
            if not _filled(day.get(meal)):
                continue
            if PlainCosts.name_city(day[meal])[1] == org:
                break
            row = plain.first(plain.restaurants, "Name", "City", day[meal])
            if row is not None:
                covered |= {c for c in wanted if c in row["Cuisines"]}
    return covered >= set(wanted)


def plain_transport(plan, days, rule: str) -> bool:
    word = "Flight" if rule == "no flight" else "Self-driving"  # case-sensitive, as upstream
    return not any(word in day.get("transportation", "-") for day in plan[:days] if _filled(day.get("transportation")))


def parsed(value):
    """A constraint value as a parsed query holds it: a new string object, not this module's interned literal
    (a check comparing with ``is`` would pass the literal and fail the real query)."""
    return value.encode().decode() if isinstance(value, str) else [parsed(v) for v in value]


def verdict(plan, query, store, key: str, **constraint) -> str:
    asked = query.model_copy(update={"local_constraint": LocalConstraint(**{k: parsed(v) for k, v in
                                                                            constraint.items()})})
    return check_plan(plan, asked, store, "official").hard[key].status.value


def both(results: list[tuple[str, bool]]) -> None:
    """Every planshape verdict equals the plain one, and the sweep saw both verdicts."""
    assert [got for got, _ in results] == ["pass" if want else "fail" for _, want in results]
    assert {want for _, want in results} == {True, False}


def fragments(plan):
    """The plan with each stay's name cut to 3 characters: it matches several rows, and the first one is read."""
    return [{**day, "accommodation": _fragment(day["accommodation"])} if _filled(day.get("accommodation")) else day
            for day in plan]


def test_house_rules(train, database, plain):
    results = []
    for query, gold in train:
        for plan in (gold, fragments(gold)):
            rows = stays(plain, plan, query.days)
            results += [(verdict(plan, query, database, "valid_room_rule", house_rule=rule),
                         plain_room_rule(rows, rule)) for rule in HOUSE_RULES]
    both(results)


def with_stays_of_type(plain: PlainCosts, plan, days, room_type: str):
    """The plan with every stay moved to the city's first listing of ``room_type`` (None: the city has none)."""
    out = [dict(day) for day in plan]
    for day in out[:days]:
        if _filled(day.get("accommodation")):
            city = PlainCosts.name_city(day["accommodation"])[1]
            listed = plain.rooms[(plain.rooms.city == city) & (plain.rooms["room type"] == room_type)]
            if listed.empty:
                return None
            day["accommodation"] = f"{listed.iloc[0].NAME}, {city}"
    return out


def test_room_types(train, database, plain):
    results = []
    for query, gold in train:
        plans = [gold, *(p for kind in ROOM_TYPES.values() if (p := with_stays_of_type(plain, gold, query.days, kind)))]
        for plan in plans:  # the gold stays, and the same trip in shared, private and entire listings
            rows = stays(plain, plan, query.days)
            results += [(verdict(plan, query, database, "valid_room_type", room_type=kind),
                         plain_room_type(rows, kind)) for kind in ("not shared room", *ROOM_TYPES)]
    both(results)
    assert any(not want for got, want in results[::4])  # "not shared room" fails somewhere (every 4th: that kind)


def test_cuisines(train, database, plain):
    results = []
    for query, plan in train:
        for k, cuisine in enumerate(CUISINES):
            wanted = [cuisine, CUISINES[(k + 3) % len(CUISINES)]]
            results.append((verdict(plan, query, database, "valid_cuisine", cuisine=wanted),
                            plain_cuisine(plain, plan, query.days, query.org, wanted)))
    both(results)


def test_transport_rules(train, database):
    results = []
    for query, plan in train:
        results += [(verdict(plan, query, database, "valid_transportation", transportation=rule),
                     plain_transport(plan, query.days, rule)) for rule in ("no flight", "no self-driving")]
    both(results)


LAST_LEGS = ("Flight Number: F0, from A to B, Departure Time: 10:00, Arrival Time: 11:00",
             "Self-driving, from A to B, duration: 1 hour 0 mins, distance: 90 km, cost: 4",
             "Taxi, from A to B, duration: 1 hour 0 mins, distance: 90 km, cost: 90")


def test_transport_rules_read_every_day_after_a_stay_day(train, database):
    """The forbidden mode on the last day only, after stay days without transport: every day is read."""
    from planshape.validators.travelplanner.checks.hard import valid_transportation
    from planshape.validators.travelplanner.checks.modes import get_mode
    from planshape.validators.travelplanner.checks.trip import Trip

    results = []
    for query, gold in train:
        for leg in LAST_LEGS:
            plan = [dict(day) for day in gold[: query.days]]
            plan[-1]["transportation"] = leg
            for rule in ("no flight", "no self-driving"):
                asked = query.model_copy(update={"local_constraint": LocalConstraint(transportation=parsed(rule))})
                outcome, _ = valid_transportation(Trip(asked, plan, database, get_mode("official")))
                results.append(("pass" if outcome else "fail", plain_transport(plan, query.days, rule)))
    both(results)
