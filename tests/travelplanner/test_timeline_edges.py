"""The timeline's three edges, each decided on both sides (issue 33): a meal starting exactly at its latest
start, a day trip of exactly the reach (340 km before the reach became a convention, 400 km by default now: both
have rows in the distance table), and sights that exactly fill the sights' window. Each edge is pinned on every
path the check takes (the count tables, the routed search, the bound past it, ``solve``, which explain uses) and,
where the database has rows at the edge, on a real plan.
"""

from __future__ import annotations

import copy

import pytest
from planshape.validators.travelplanner.checks import timeline
from planshape.validators.travelplanner.checks.conventions import CONVENTIONS, Conventions
from planshape.validators.travelplanner.checks.modes import get_mode
from planshape.validators.travelplanner.checks.timeline import (
    EXACT_SIGHTS,
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
BOUNDS = CONVENTIONS.bounds
WINDOWS, MINUTES = BOUNDS.windows, BOUNDS.minutes
LIFTED = Conventions(sights_per_day=40).bounds  # the sights-a-day convention lifted


def _paths(day: Day) -> list[int | None]:
    """The day's end on each path: the check's fast path, ``solve`` (explain's), and the count tables."""
    schedule = solve(day)
    return [end_of_day(day), None if schedule is None else schedule.end, counted_end(day)]


def _sights(n: int, city: str = "A", step: float = 0.0) -> tuple[Item, ...]:
    """``n`` sights of ``city`` on a line ``step`` degrees of latitude apart (0: one place)."""
    return tuple(Item("attraction", f"sight {k}, {city}", city, (40.0 + k * step, -100.0)) for k in range(n))


@pytest.mark.parametrize("meal", ["breakfast", "lunch", "dinner"])
def test_a_meal_at_its_latest_start_fits_and_a_minute_later_does_not(meal):
    latest = WINDOWS[meal][1] - MINUTES[meal]
    food = Item(meal, f"{meal} place, B", "B")
    for start, fits in ((latest, True), (latest + 1, False)):
        stay = Day(1, start, "", "B", "B", (food,), ())
        drive = Day(1, start - 60, "", "A", "B", (food,), (Move("self-driving", "A", "B", 60),
                                                            Move("self-driving", "B", "A", 60)), 1)
        flight = Day(1, 0, "", "A", "B", (food,), (Move("flight F1", "A", "B", 60, start - 60 - BOUNDS.landing),))
        for day in (stay, drive, flight):
            assert _paths(day) == ([latest + MINUTES[meal]] * 3 if fits else [None] * 3), (meal, start, day.moves)
    # routed: two sights at one place and the meal; the meal at its latest start, then the sights if they fit
    routed = Day(1, latest, "", "B", "B", (food, *_sights(2, "B")), ())
    assert routing(routed.items)
    fits_after = latest + MINUTES[meal] + 2 * MINUTES["attraction"] <= WINDOWS["attraction"][1]
    assert (end_of_day(routed) is not None) == fits_after == (solve(routed) is not None)
    assert end_of_day(routed._replace(start=latest + 1)) is None and solve(routed._replace(start=latest + 1)) is None


def test_a_meal_at_its_latest_start_on_real_flights(train, database):
    """F3877914 (Las Vegas to Denver, 2022-03-12) lands 15:00: lunch can start 16:00, its latest start; F3710122
    (Dallas to Houston, 2022-03-11) lands 22:00: dinner at 23:00. A minute more to leave the airport, and neither
    fits (a convention failed them)."""
    assert (WINDOWS["lunch"][1] - MINUTES["lunch"], WINDOWS["dinner"][1] - MINUTES["dinner"]) == (16 * 60, 23 * 60)
    query, gold = train[4]  # Las Vegas -> Denver on 2022-03-12
    lunch = copy.deepcopy(gold)
    lunch[0].update(transportation="Flight Number: F3877914, from Las Vegas to Denver, Departure Time: 12:01, "
                                   "Arrival Time: 15:00", breakfast="-", attraction="-", dinner="-",
                    lunch=fresh(gold, database, "restaurants", "Denver")[0])
    query2, gold2 = train[41]  # Seattle -> Texas; day 2 flies Dallas -> Houston on 2022-03-11
    dinner = copy.deepcopy(gold2)
    dinner[1].update(transportation="Flight Number: F3710122, from Dallas(Texas) to Houston(Texas), Departure Time: "
                                    "20:55, Arrival Time: 22:00", breakfast="-", attraction="-", lunch="-",
                     dinner=fresh(gold2, database, "restaurants", "Houston(Texas)")[0])
    later = get_mode("strict", Conventions(landing_minutes=BOUNDS.landing + 1))
    for q, plan, day, when in ((query, lunch, 1, "16:01"), (query2, dinner, 2, "23:01")):
        assert check_plan(plan, q, database, "strict").commonsense[CITY].status.value == "pass"
        verdict = check_plan(plan, q, database, later).commonsense[CITY]
        assert f"day {day} (Q19)" in verdict.reason and f"could start at {when} at the earliest" in verdict.reason
        assert verdict.category == "convention", verdict.reason


def test_a_day_trip_of_exactly_the_reach_is_in_reach_and_beyond_it_is_not(train, database):
    """Cleveland to Cincinnati is 400 km in the distance table (the default reach), Cleveland to Dayton 340 km
    (the reach before it was a convention), Dayton to Cleveland 342: on the Minneapolis to Ohio gold plan, a sight
    of the city exactly at the reach is a day trip, and one a kilometre beyond (the reach moved down) is not."""
    query, gold = train[44]  # day 4 stays in Cleveland, day 6 in Dayton
    assert database.distance("Cleveland", "Cincinnati").distance == "400 km" == f"{CONVENTIONS.day_trip_km:g} km"
    assert database.distance("Cleveland", "Dayton").distance == "340 km"
    assert database.distance("Dayton", "Cleveland").distance == "342 km"
    cincinnati = copy.deepcopy(gold)
    cincinnati[3]["attraction"] += fresh(gold, database, "attractions", "Cincinnati(Ohio)")[0] + ";"
    dayton = copy.deepcopy(gold)
    dayton[3]["attraction"] += fresh(gold, database, "attractions", "Dayton(Ohio)")[0] + ";"
    cleveland = copy.deepcopy(gold)
    cleveland[5]["attraction"] += fresh(gold, database, "attractions", "Cleveland(Ohio)")[0] + ";"
    for plan, reach, passes in ((cincinnati, 400, True), (cincinnati, 399, False), (dayton, 340, True),
                                (dayton, 339, False), (cleveland, 342, True), (cleveland, 341, False)):
        mode = get_mode("strict", Conventions(day_trip_km=reach))
        verdict = check_plan(plan, query, database, mode).commonsense[CITY]
        assert (verdict.status.value == "pass") is passes, (reach, verdict.reason)
        if not passes:
            assert "(Q20: a day trip from" in verdict.reason and f"reaches {reach} km" in verdict.reason, verdict.reason


def test_sights_that_exactly_fill_the_window_fit_and_a_minute_more_does_not():
    """(The sights-a-day convention lifted: the window is the bound under test.)"""
    opens, closes = WINDOWS["attraction"]
    sight = MINUTES["attraction"]
    most = (closes - opens) // sight  # 20 with 07:00-22:00 and 45 minutes
    assert most * sight == closes - opens
    # counted (one place, more than the exact search takes: the count table and the bound)
    assert _paths(Day(1, 0, "", "A", "A", _sights(most), (), bounds=LIFTED)) == [closes] * 3
    assert _paths(Day(1, opens + 1, "", "A", "A", _sights(most), (), bounds=LIFTED)) == [None] * 3
    assert _paths(Day(1, 0, "", "A", "A", _sights(most + 1), (), bounds=LIFTED)) == [None] * 3
    # a minute between each two: the bound fails what the count table alone would pass
    spaced = Day(1, 0, "", "A", "A", _sights(most, step=0.00075), (), bounds=LIFTED)
    assert counted_end(spaced) == closes and end_of_day(spaced) is None and solve(spaced) is None
    # routed (the exact search): six sights fill the last 4 h 30 of the window exactly
    start = closes - EXACT_SIGHTS * sight
    one_place = Day(1, start, "", "A", "A", _sights(EXACT_SIGHTS), ())
    assert routing(one_place.items) and _paths(one_place) == [closes] * 3
    assert _paths(one_place._replace(start=start + 1)) == [None] * 3
    spaced = one_place._replace(items=_sights(EXACT_SIGHTS, step=0.00075))
    assert timeline.hop_table(tuple(it.at for it in spaced.items))[0][1] == 1  # a minute's walk apart
    assert end_of_day(spaced) is None and solve(spaced) is None and counted_end(spaced) == closes
    assert end_of_day(spaced._replace(start=start - (EXACT_SIGHTS - 1))) == closes  # the five minutes given back
