"""The timeline's three edges, each decided on both sides (issue 33): a meal starting exactly at its latest
start, a day trip of exactly 340 km, and sights that exactly fill the sights' window. Each edge is pinned on
every path the check takes (the count tables, the routed search, the bound past it, ``solve``, which explain
uses) and, where the database has rows at the edge, on a real plan.
"""

from __future__ import annotations

import copy

import pytest
from planshape.validators.travelplanner.checks import timeline
from planshape.validators.travelplanner.checks.timeline import (
    EXACT_SIGHTS,
    MEAL_MINUTES,
    SIGHT_MINUTES,
    WINDOWS,
    Day,
    Item,
    Move,
    counted_end,
    end_of_day,
    routing,
    solve,
)
from planshape.validators.travelplanner.checks.verdicts import check_plan

from .round4_mutations import fresh

CITY = "is_valid_information_in_current_city"


def _paths(day: Day) -> list[int | None]:
    """The day's end on each path: the check's fast path, ``solve`` (explain's), and the count tables."""
    schedule = solve(day)
    return [end_of_day(day), None if schedule is None else schedule.end, counted_end(day)]


def _sights(n: int, city: str = "A", step: float = 0.0) -> tuple[Item, ...]:
    """``n`` sights of ``city`` on a line ``step`` degrees of latitude apart (0: one place)."""
    return tuple(Item("attraction", f"sight {k}, {city}", city, (40.0 + k * step, -100.0)) for k in range(n))


@pytest.mark.parametrize("meal", ["breakfast", "lunch", "dinner"])
def test_a_meal_at_its_latest_start_fits_and_a_minute_later_does_not(meal):
    latest = WINDOWS[meal][1] - MEAL_MINUTES
    food = Item(meal, f"{meal} place, B", "B")
    for start, fits in ((latest, True), (latest + 1, False)):
        stay = Day(1, start, "", "B", "B", (food,), ())
        drive = Day(1, start - 60, "", "A", "B", (food,), (Move("self-driving", "A", "B", 60),
                                                            Move("self-driving", "B", "A", 60)), 1)
        flight = Day(1, 0, "", "A", "B", (food,), (Move("flight F1", "A", "B", 60, start - 60 - timeline.LANDING),))
        for day in (stay, drive, flight):
            assert _paths(day) == ([latest + MEAL_MINUTES] * 3 if fits else [None] * 3), (meal, start, day.moves)
    # routed: two sights at one place and the meal; the meal at its latest start, then the sights if they fit
    routed = Day(1, latest, "", "B", "B", (food, *_sights(2, "B")), ())
    assert routing(routed.items)
    assert (end_of_day(routed) is not None) == (latest + MEAL_MINUTES + 2 * SIGHT_MINUTES <= WINDOWS["attraction"][1])
    assert end_of_day(routed._replace(start=latest + 1)) is None and solve(routed._replace(start=latest + 1)) is None


def test_a_meal_at_its_latest_start_on_real_flights(train, database, monkeypatch):
    """F3978103 (Houston to Orlando, 2022-03-14) lands 13:30: lunch can start 14:30, its latest start; F3580830
    (Las Vegas to Stockton, 2022-03-03) lands 21:30: dinner at 22:30. A minute more to leave the airport, and
    neither fits."""
    query, gold = train[5]  # Orlando -> Texas; day 5 flies Houston -> Orlando on 2022-03-14
    lunch = copy.deepcopy(gold)
    lunch[4].update(transportation="Flight Number: F3978103, from Houston(Texas) to Orlando, Departure Time: 10:27, "
                                   "Arrival Time: 13:30", lunch=fresh(gold, database, "restaurants", "Orlando")[0],
                    dinner="-")
    query2, gold2 = train[2]  # Las Vegas -> Stockton on 2022-03-03
    dinner = copy.deepcopy(gold2)
    dinner[0].update(transportation="Flight Number: F3580830, from Las Vegas to Stockton, Departure Time: 20:08, "
                                    "Arrival Time: 21:30", breakfast="-", attraction="-", lunch="-")
    for q, plan in ((query, lunch), (query2, dinner)):
        assert check_plan(plan, q, database, "strict").commonsense[CITY].status.value == "pass"
    monkeypatch.setattr(timeline, "LANDING", timeline.LANDING + 1)
    _clear()
    try:
        for q, plan, day, when in ((query, lunch, 5, "14:31"), (query2, dinner, 1, "22:31")):
            reason = check_plan(plan, q, database, "strict").commonsense[CITY].reason
            assert f"day {day} (Q19)" in reason and f"could start at {when} at the earliest" in reason, reason
    finally:
        monkeypatch.undo()
        _clear()


def _clear():
    for cached in (timeline.one_city, timeline.two_cities, timeline.routed):
        cached.cache_clear()


def test_a_day_trip_of_exactly_340_km_is_in_reach_and_342_is_not(train, database):
    """Cleveland to Dayton is 340 km in the distance table (3 h 11), Dayton to Cleveland 342 km: on the Minneapolis
    to Ohio gold plan, a Dayton sight on the Cleveland day is a day trip; a Cleveland sight on the Dayton day is
    not (Q20)."""
    query, gold = train[44]
    assert database.distance("Cleveland", "Dayton").distance == "340 km"
    assert database.distance("Dayton", "Cleveland").distance == "342 km"
    reach = copy.deepcopy(gold)
    reach[3]["attraction"] += fresh(gold, database, "attractions", "Dayton(Ohio)")[0] + ";"
    verdict = check_plan(reach, query, database, "strict").commonsense[CITY]
    assert verdict.status.value == "pass", verdict.reason
    beyond = copy.deepcopy(gold)
    beyond[5]["attraction"] += fresh(gold, database, "attractions", "Cleveland(Ohio)")[0] + ";"
    verdict = check_plan(beyond, query, database, "strict").commonsense[CITY]
    assert verdict.status.value == "fail" and "(Q20: a day trip from Dayton reaches 340 km; Cleveland is 342 km by " \
                                              "road)" in verdict.reason, verdict.reason


def test_sights_that_exactly_fill_the_window_fit_and_a_minute_more_does_not():
    opens, closes = WINDOWS["attraction"]
    most = (closes - opens) // SIGHT_MINUTES  # 16
    assert most * SIGHT_MINUTES == closes - opens
    # counted (one place, more than the exact search takes: the count table and the bound)
    assert _paths(Day(1, 0, "", "A", "A", _sights(most), ())) == [closes] * 3
    assert _paths(Day(1, opens + 1, "", "A", "A", _sights(most), ())) == [None] * 3
    assert _paths(Day(1, 0, "", "A", "A", _sights(most + 1), ())) == [None] * 3
    # a minute between each two: the bound fails what the count table alone would pass
    spaced = Day(1, 0, "", "A", "A", _sights(most, step=0.00075), ())
    assert counted_end(spaced) == closes and end_of_day(spaced) is None and solve(spaced) is None
    # routed (the exact search): six sights from 15:30 fill 15:30-20:00 exactly
    start = closes - EXACT_SIGHTS * SIGHT_MINUTES
    one_place = Day(1, start, "", "A", "A", _sights(EXACT_SIGHTS), ())
    assert routing(one_place.items) and _paths(one_place) == [closes] * 3
    assert _paths(one_place._replace(start=start + 1)) == [None] * 3
    spaced = one_place._replace(items=_sights(EXACT_SIGHTS, step=0.00075))
    assert timeline.hop_table(tuple(it.at for it in spaced.items))[0][1] == 1  # a minute's walk apart
    assert end_of_day(spaced) is None and solve(spaced) is None and counted_end(spaced) == closes
    assert end_of_day(spaced._replace(start=start - (EXACT_SIGHTS - 1))) == closes  # the five minutes given back
