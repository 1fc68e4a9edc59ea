"""A red-eye flight (issue 33): the wait at the airport before a day's first flight may begin before its 00:00,
as far back as the day before allows (the traveller went to the airport the night before; the trip's first day
has nothing before it). Nothing else does: meals, sights and ground legs wait for 00:00.

F3977669 (Denver to Las Vegas, 2022-03-14) leaves 00:05 and lands 01:01: with 20 min at the airport, it is
boarded from 23:45 the evening before. Train row 4 flies home on that date, so its day 3 can take it.
"""

from __future__ import annotations

import copy

import pytest
from planshape.validators.travelplanner.checks.conventions import CONVENTIONS, Conventions
from planshape.validators.travelplanner.checks.modes import STRICT, get_mode
from planshape.validators.travelplanner.checks.timeline import Day, Item, Move, counted_end, end_of_day, routing, solve
from planshape.validators.travelplanner.checks.trip import Trip
from planshape.validators.travelplanner.checks.trip_timeline import NIGHT_FREE, timeline_failure, trip_timeline
from planshape.validators.travelplanner.checks.verdicts import check_plan

from .clock_oracle import first_infeasible_day

CITY = "is_valid_information_in_current_city"
BOUNDS = CONVENTIONS.bounds
RED_EYE = ("Flight Number: F3977669, from Denver to Las Vegas, Departure Time: 00:05, Arrival Time: 01:01")
DEPARTS = 5  # 00:05
LATEST_FREE = DEPARTS - BOUNDS.boarding  # 23:45 the evening before, in the day's own clock (-15)


def _paths(day: Day) -> list[int | None]:
    """The day's end on every path: the check's, ``solve`` (explain's), and the count tables."""
    schedule = solve(day)
    return [end_of_day(day), None if schedule is None else schedule.end, counted_end(day)]


def _red_eye(train) -> tuple:
    """Train row 4 (Las Vegas to Denver and back, 2022-03-12 to 14) with day 3 on the red-eye, its Denver items
    cleared (nothing in Denver can come before a 00:05 departure)."""
    query, gold = train[4]
    plan = copy.deepcopy(gold)
    plan[2].update(transportation=RED_EYE, breakfast="-", attraction="-", lunch="-", dinner="-")
    return query, plan


def test_the_red_eye_is_a_real_row(database):
    row = database.flight_on_route("F3977669", "Denver", "Las Vegas", "2022-03-14")
    assert (row.dep_time, row.arr_time) == ("00:05", "01:01")


def test_a_red_eye_after_a_day_over_by_evening_passes_strict_and_official_is_unchanged(train, database):
    """The regression: strict failed it on the airport time (the day started at 00:00, 5 min before departure)."""
    query, plan = _red_eye(train)
    strict = check_plan(plan, query, database, "strict")
    assert strict.commonsense[CITY].status.value == "pass", strict.commonsense[CITY].reason
    assert all(v.status.value in ("pass", "n/a") for v in (*strict.commonsense.values(), *strict.hard.values()))
    official = check_plan(plan, query, database, "official")
    assert all(v.status.value in ("pass", "n/a") for v in (*official.commonsense.values(), *official.hard.values()))
    assert first_infeasible_day(plan, query.days, query.date, database) is None  # the oracle agrees
    # day 3's clock: 00:00, the wait at the airport from when day 2 was over (its dinner, 17:30)
    days = trip_timeline(Trip(query, plan[: query.days], database, STRICT))
    assert [d.failure for d in days] == [None] * 3
    assert days[2].day.start == 0 and days[2].day.airport() == days[1].schedule.end - 1440 < LATEST_FREE


@pytest.mark.parametrize(("dinner_opens", "passes"), [("23:15", True), ("23:16", False)])
def test_a_day_before_over_too_late_leaves_no_time_at_the_airport(train, database, dinner_opens, passes):
    """Day 2's dinner at its earliest (a 30 min dinner whose window opens 23:15) ends 23:45, exactly when the
    wait for the 00:05 flight must begin: it fits. A minute later it does not, and the reason names day 3, the
    flight, and when the traveller was free."""
    query, plan = _red_eye(train)
    mode = get_mode("strict", Conventions(dinner=(dinner_opens, "24:00")))
    verdict = check_plan(plan, query, database, mode).commonsense[CITY]
    assert (verdict.status.value == "pass") is passes, verdict.reason
    if not passes:
        assert "day 3 (Q19)" in verdict.reason, verdict.reason
        assert "free in Denver from 23:46 the day before" in verdict.reason, verdict.reason
        assert "F3977669 leaves Denver at 00:05 (20 min at the airport before)" in verdict.reason, verdict.reason
        assert verdict.category == "convention"  # no time at the airport at all would fit it


@pytest.mark.parametrize(("boarding", "passes"), [(395, True), (396, False)])
def test_the_wait_reaches_back_to_the_day_befores_end_and_no_further(train, database, boarding, passes):
    """Day 2 is over at 17:30 (its dinner at its earliest): 395 min at the airport before 00:05 begin exactly
    then; 396 would overlap the dinner."""
    query, plan = _red_eye(train)
    mode = get_mode("strict", Conventions(boarding_minutes=boarding))
    verdict = check_plan(plan, query, database, mode).commonsense[CITY]
    assert (verdict.status.value == "pass") is passes, verdict.reason
    if not passes:
        assert "day 3 (Q19)" in verdict.reason and "17:29 the day before" not in verdict.reason


def test_a_red_eye_on_the_first_day(train, database):
    """The trip's first day has nothing before it: a red-eye on day 1 is boarded the night before."""
    query, gold = train[4]
    query = query.model_copy(update={"org": "Denver", "dest": "Las Vegas",
                                     "date": ["2022-03-14", "2022-03-15", "2022-03-16"]})
    plan = [{"days": 1, "current_city": "from Denver to Las Vegas", "transportation": RED_EYE, "breakfast": "-",
             "attraction": "-", "lunch": "-", "dinner": "-", "accommodation": "-"},
            {"days": 2, "current_city": "Las Vegas", "transportation": "-", "breakfast": "-", "attraction": "-",
             "lunch": "-", "dinner": "-", "accommodation": "-"},
            {"days": 3, "current_city": "from Las Vegas to Denver",
             "transportation": "Self-driving, from Las Vegas to Denver", "breakfast": "-", "attraction": "-",
             "lunch": "-", "dinner": "-", "accommodation": "-"}]
    trip = Trip(query, plan, database, STRICT)
    days = trip_timeline(trip)
    assert days[0].day is not None and days[0].day.airport() == NIGHT_FREE, days[0]
    assert timeline_failure(trip) is None and [d.failure for d in days] == [None] * 3
    assert check_plan(plan, query, database, "strict").commonsense[CITY].status.value == "pass"
    assert first_infeasible_day(plan, query.days, query.date, database) is None


def _flight(free: int | None, items: tuple[Item, ...] = (), bounds=BOUNDS, departs: int = DEPARTS) -> Day:
    return Day(3, 0, "", "A", "B", items, (Move("flight F1", "A", "B", 56, departs),), bounds=bounds, free=free)


def test_every_path_boards_from_the_day_befores_end_to_the_minute():
    """The count tables, the routed search (two sights in the arrival city), ``solve``: all board a 00:05
    flight when the day before was over at 23:45, none at 23:46 or from 00:00 alone."""
    lands = DEPARTS + 56 + BOUNDS.landing
    sights = tuple(Item("attraction", f"sight {k}, B", "B", (40.0, -100.0)) for k in range(2))
    assert routing(sights)
    for items, end in (((), lands), (sights, BOUNDS.windows["attraction"][0] + 2 * BOUNDS.minutes["attraction"])):
        assert _paths(_flight(LATEST_FREE, items)) == [end] * 3
        assert _paths(_flight(NIGHT_FREE, items)) == [end] * 3
        for free in (LATEST_FREE + 1, None, 0):
            assert _paths(_flight(free, items)) == [None] * 3, (free, items)


def test_nothing_else_starts_before_midnight():
    """A breakfast, a sight or a drive waits for 00:00 however early the day before ended; a flight after a
    breakfast is waited for after it (a breakfast window from 00:00: 00:00-00:30, at the airport 00:30-00:50)."""
    early = Conventions(breakfast=("00:00", "12:00"), attraction=("00:00", "22:00")).bounds
    breakfast = Item("breakfast", "breakfast place, A", "A")
    sight = Item("attraction", "a sight, B", "B", (40.0, -100.0))
    for items, end in (((breakfast,), 30), ((sight,), 45)):
        assert _paths(Day(2, 0, "", items[0].city, items[0].city, items, (), bounds=early, free=-600)) == [end] * 3
    drive = (Move("self-driving", "A", "B", 60), Move("self-driving", "B", "A", 60))
    assert _paths(Day(2, 0, "", "A", "B", (sight,), drive, 1, early, free=-600)) == [60 + 45] * 3
    assert _paths(_flight(-600, (breakfast,), early, departs=50)) == [50 + 56 + BOUNDS.landing] * 3
    assert _paths(_flight(-600, (breakfast,), early, departs=49)) == [None] * 3
