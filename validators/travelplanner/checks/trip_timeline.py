"""Strict Q19: each day of a plan as a ``timeline.Day`` built from the database's own times, the clock
carried from day to day, and the first day no schedule fits.

Times come from the rows the plan names, never from its text: a flight's departure and arrival (an arrival
earlier than the departure is the next day), a ground leg's duration in the distance table, the distance
table's duration to a stay day's day-trip city (and back). A day starts at 00:00, or later when the day
before ran past midnight (a flight landing after it, a drive running into the night). Its items and ground
legs never start earlier: every day but the last names the night's accommodation, so a drive that left the
evening before would state a night nobody spent there (no gold plan needs one). One thing may: the wait at
the airport before a flight the day takes first, as far back as the day before allows (a red-eye leaving
00:05 is boarded from 23:45 the evening before, when the day before was over by then). The trip's first day
has no day before (``NIGHT_FREE``). A day whose transport the database cannot time (no row, not a canonical
string, several modes) is left to Within Sandbox, and the next day starts afresh, as the first does. Items
in a city the day cannot reach (another rule's failure: Q1, Q12, Q20) are not timed, so each rule names its
own failure.

A ground leg is travelled as often as the plan states and pays for it: once on a travel day, there and
back on a stay day's day trip. An extra traversal a day's items need (breakfast in the arrival city, dinner
back in the departure city, the night in the arrival city: the leg three times) is a leg the plan neither
states nor pays, and fails the day. One tolerance, from the gold plans: a self-driving leg of at most
``SHUTTLE_MINUTES`` may be driven back and forth once more (train rows 8 and 11, day 3: lunch in the
arrival city, a sight and dinner back in the departure city, on a 4 h 09 and a 3 h 42 drive).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..reading import FLIGHT
from ..text import clock_minutes, duration_minutes, modes_named
from .categories import CONVENTION, IMPOSSIBLE, Reason, because
from .conventions import Bounds
from .sight_moves import hop_table
from .timeline import (
    EXACT_SIGHTS,
    Day,
    Item,
    Move,
    Schedule,
    clock,
    conflict,
    end_of_day,
    one_city,
    routed,
    solve,
    too_many,
    two_cities,
)
from .trip import Trip
from .whereabouts import day_trip

SHUTTLE_MINUTES = 250  # the longest self-driving leg a day may drive back and forth once more than stated (4 h 10)
STATED_LEGS = 1  # a travel day's transport states its leg once
DAY_TRIP_LEGS = 2  # there and back
NIGHT_FREE = -1440  # ``ended`` on the first day, or after a day not timed: nothing before it binds (boarding <= 24 h)


@dataclass(frozen=True)
class TimedDay:
    """One day's timeline: the ``Day`` solved, and its schedule, or why none fits (``day`` None: not timed)."""

    number: int
    day: Day | None
    schedule: Schedule | None
    failure: str | None
    note: str = ""


def timeline_failure(trip: Trip) -> Reason | None:
    """The first day no schedule fits, with the items and times that conflict (None: every day fits), as a
    ``convention`` when the day fits with every convention relaxed to its physical limit (any hour, no least
    time, no time at the airport), else as ``physically impossible``."""
    bounds = trip.mode.conventions.bounds
    ended = NIGHT_FREE  # when the day before was over, in minutes after this day's midnight (negative: before it)
    for i, unit in enumerate(trip.days):
        end = _quick_end(trip, i, unit, ended, bounds)
        if end is NotImplemented:
            day = _day(trip, i, unit, ended, bounds)
            if isinstance(day, str):
                ended = NIGHT_FREE
                continue
            end = end_of_day(day)
        elif end is UNTIMED:
            ended = NIGHT_FREE
            continue
        if end is None:
            timed = trip_timeline(trip, schedules=False)[-1]  # again, with the days the reason names
            category = IMPOSSIBLE
            if timed.day is not None and end_of_day(timed.day._replace(bounds=bounds.relaxed())) is not None:
                category = CONVENTION
            return because(category, f"day {timed.number} (Q19): {timed.failure or 'no order fits its items'}")
        ended = next_start(end)
    return None


def next_start(end: int) -> int:
    """When the next day's traveller is free after a day over at ``end``, in the next day's clock (``ended``):
    before its 00:00 when the day was over by midnight, later when it ran past. Only the wait at the airport
    for a flight taken first may begin before 00:00 (``timeline.Day.free``); the rest of the day starts at
    ``max(ended, 0)`` (the night is spent at the day's accommodation)."""
    return end - 1440


def day_end(trip: Trip, i: int, unit: Any, ended: int) -> int | None | str:
    """When day ``i`` (a day dict) is over at the earliest, free from ``ended`` (``next_start``'s: negative
    when the day before was over by midnight; ``NIGHT_FREE`` on the first day): None when no schedule fits,
    the reason when the day is not timed. The clock the check keeps, one day at a time (the solver builds its
    model's timeline from it)."""
    day = _day(trip, i, unit, ended, trip.mode.conventions.bounds)
    return day if isinstance(day, str) else end_of_day(day)


UNTIMED = -(1 << 40)


def _quick_end(trip: Trip, i: int, unit: Any, ended: int, b: Bounds) -> Any:
    """``end_of_day(_day(...))`` read straight from the fields, without building the day (the check's path:
    most days are a stay or a travel day): ``UNTIMED`` for a day not timed, ``NotImplemented`` for a day
    with an attraction in a third city (a day trip, or an item another rule fails), left to ``_day``."""
    if unit.__class__ is not dict or unit.get("current_city").__class__ is not str:
        return UNTIMED
    text, start = unit["current_city"], ended if ended > 0 else 0
    if "from" not in text:
        city = trip.city(text)
        meals, sights = _fields(trip, unit, city, city)
        if sights is None:  # a day trip: the whole day is built
            return NotImplemented
        if sights[0] <= 1:
            return one_city(start, meals[0], sights[0], b)
        if too_many(sights[0], b):
            return None
        points = _points(trip, unit) if sights[0] <= EXACT_SIGHTS else None
        if points is None:  # a place the database lacks, or a day past the exact search: the whole day is built
            return NotImplemented
        return routed(start, city, city, tuple((meal, city) for meal in meals[0]), ((city, hop_table(points)),), (),
                      len(meals[0]) + sights[0] + 2, b)  # ``timeline.shape`` of the day, read from its fields
    origin, destination = trip.route(text)
    move = _transport(trip, i, unit.get("transportation"), origin, destination)
    if move is None:
        return UNTIMED
    meals, sights = _fields(trip, unit, origin, destination)
    if sights is None or too_many(sights[0] + sights[1], b):
        return None if sights is not None else NotImplemented
    if sights[0] > 1 or sights[1] > 1:
        return NotImplemented
    if move.departs is not None:  # straight to the airport, the wait from ``ended``; or its items first
        before = one_city(start, meals[0], sights[0], b) if meals[0] or sights[0] else ended
        if before is None or before > move.departs - b.boarding:
            return None
        return one_city(move.departs + move.minutes + b.landing, meals[1], sights[1], b)
    back = _ground_minutes(trip, destination, origin)
    in_b = tuple((meal, True) for meal in meals[1]) + tuple((meal, False) for meal in meals[0])
    return two_cities(start, in_b, sights[0], sights[1], move.minutes, move.minutes if back is None else back,
                      origin == destination, True, b, _legs(move))



def _fields(trip: Trip, unit: dict, first: str, second: str) -> tuple[tuple, tuple | None]:
    """The meals (in window order: breakfast, lunch, dinner, as the conventions open them) and the sight counts
    of a day's fields in its cities ``first`` and ``second`` (the same city on a stay day): ``(meals in first,
    in second), (sights in first, in second)``; the sights None when one is elsewhere. A meal elsewhere is
    another rule's failure, not timed."""
    meals: tuple[list[str], list[str]] = ([], [])
    for meal in ("breakfast", "lunch", "dinner"):
        value = unit.get(meal)
        if value.__class__ is str and value not in ("", "-") and trip.filled(value):
            there = trip.item_city(value, unit)
            if there == first:
                meals[0].append(meal)
            elif there == second:
                meals[1].append(meal)
    counts = [0, 0]
    value = unit.get("attraction")
    if value.__class__ is str and value not in ("", "-") and trip.filled(value):
        for text in trip.items(value):
            there = trip.item_city(text, unit)
            if there == first:
                counts[0] += 1
            elif there == second:
                counts[1] += 1
            else:
                return (), None
    return (tuple(meals[0]), tuple(meals[1])), tuple(counts)


def trip_timeline(trip: Trip, schedules: bool = True) -> list[TimedDay]:
    """Every day's timeline with the schedule found (``schedules``; else only the days' verdicts), up to and
    including the first day none fits."""
    out: list[TimedDay] = []
    ended, bounds = NIGHT_FREE, trip.mode.conventions.bounds
    for i, unit in enumerate(trip.days):
        day = _day(trip, i, unit, ended, bounds)
        if isinstance(day, str):
            out.append(TimedDay(i + 1, None, None, None, day))
            ended = NIGHT_FREE
            continue
        end = end_of_day(day)
        if end is None:
            day = day._replace(since=_since(out))
            out.append(TimedDay(i + 1, day, None, conflict(day)))
            return out
        out.append(TimedDay(i + 1, day, solve(day) if schedules else None, None))
        ended = next_start(end)
    return out


def _since(before: list[TimedDay]) -> str:
    """Why a day starts when it does, in its own clock (read again, for a failure's reason only)."""
    if not before:
        return "the trip starts"
    last = before[-1]
    schedule = last.schedule if last.schedule is not None or last.day is None else solve(last.day)
    if last.day is None or schedule is None:
        return f"day {last.number} is not timed"
    steps, end = schedule.steps, schedule.end - 1440
    if not steps:
        return f"day {last.number} is over"
    step = steps[-1]
    if step.item is None and step.what.startswith("flight"):
        return (f"day {last.number}'s {step.what} lands at {clock(step.end - 1440)} ({last.day.bounds.landing} min "
                f"to leave the airport)")
    return f"day {last.number} ends with {step.what} at {clock(end)}"


def _day(trip: Trip, i: int, unit: Any, ended: int, b: Bounds) -> Day | str:
    """Day ``i`` to schedule, from ``ended`` (when the day before was over: its 00:00 at the earliest, the
    airport's wait before a first flight from ``ended``), or why it is not timed."""
    if unit.__class__ is not dict or unit.get("current_city").__class__ is not str:
        return "no current city"
    text, start = unit["current_city"], ended if ended > 0 else 0
    items = _items(trip, unit)
    if "from" in text:
        origin, destination = trip.route(text)
        move = _transport(trip, i, unit.get("transportation"), origin, destination)
        if move is None:
            return "its transport has no row the database times (Within Sandbox judges it)"
        if move.departs is not None:
            return Day(i + 1, start, "", origin, destination, _within(items, (origin, destination)), (move,),
                       bounds=b, free=ended)
        back = _ground_minutes(trip, destination, origin)  # the way back, when the plan may drive it (_legs)
        moves = (move, Move(move.label, destination, origin, move.minutes if back is None else back))
        return Day(i + 1, start, "", origin, destination, _within(items, (origin, destination)), moves, _legs(move), b)
    city = trip.city(text)
    away = [it.city for it in items if it.city != city and it.kind == "attraction"]
    trip_to = day_trip(trip, city, list(dict.fromkeys(away))) if away else None
    if trip_to is None:
        return Day(i + 1, start, "", city, city, _within(items, (city,)), (), bounds=b)
    there, going, coming = trip_to
    moves = (Move("a day trip", city, there, going), Move("a day trip", there, city, coming))
    return Day(i + 1, start, "", city, city, _within(items, (city, there)), moves, DAY_TRIP_LEGS, b)


def _legs(move: Move) -> int:
    """How often a travel day may drive or ride its ground leg: as often as the plan states it (once), or
    there and back once more by car on a leg the gold plans drive so (``SHUTTLE_MINUTES``)."""
    if move.label == "self-driving" and move.minutes <= SHUTTLE_MINUTES:
        return STATED_LEGS + 2
    return STATED_LEGS


def _within(items: list[Item], cities: tuple[str, ...]) -> tuple[Item, ...]:
    """The items the day can reach (another rule fails an item elsewhere: Q1, Q12, Q20)."""
    return tuple(it for it in items if it.city in cities)


def _items(trip: Trip, unit: dict) -> list[Item]:
    """The day's meals and sights in the plan's order, each with the city its database row is in."""
    items: list[Item] = []
    for key in FIELDS:
        value = unit.get(key)
        if value.__class__ is not str or value in ("", "-") or not trip.filled(value):
            continue
        if key == "attraction":
            items += [_item(Item, (key, text, trip.item_city(text, unit), _place(trip, text, unit)))
                      for text in trip.items(value)]
        else:
            items.append(_item(Item, (key, value, trip.item_city(value, unit), None)))
    return items


def _points(trip: Trip, unit: dict) -> tuple[tuple[float, float], ...] | None:
    """The places of a day's sights in the plan's order (None when the database lacks one)."""
    points = tuple(_place(trip, text, unit) for text in trip.items(unit["attraction"]))
    return None if None in points else points  # type: ignore[return-value]


def _place(trip: Trip, text: str, unit: Any = None) -> tuple[float, float] | None:
    """A sight's (latitude, longitude): its first database row's (None when no row matches)."""
    rows = trip.places("attractions", text, unit)
    if not rows:
        return None
    row = rows[0]
    try:
        point = (float(row.latitude), float(row.longitude))
    except (TypeError, ValueError):
        return None
    return point if all(abs(v) <= 180 for v in point) else None


FIELDS = ("breakfast", "attraction", "lunch", "dinner")
_item = tuple.__new__  # ``Item(...)`` without its constructor's frame: a plan's timeline builds dozens


def _transport(trip: Trip, i: int, value: Any, origin: str, destination: str) -> Move | None:
    """The day's move from the database: its flight row's times, or its ground leg's duration."""
    read = trip.transport(value)
    if read is None or read.mode is None or len(read.legs) > 1 or \
            (trip.mode.exact_spelling and len(trip.memo.parse(modes_named, value)) != 1):
        return None
    stated_from, stated_to = read.leg if read.legs else (None, None)
    leg = (origin if stated_from is None else trip.city(stated_from),
           destination if stated_to is None else trip.city(stated_to))
    if leg != (origin, destination):
        return None
    if read.mode == FLIGHT:
        number = read.value("flight_number")
        row = None if number is None else trip.store.flight_on_route(str(number), origin, destination,
                                                                     trip.flight_date(i))
        if row is None:
            return None
        dep, arr = clock_minutes(row.dep_time), clock_minutes(row.arr_time)
        if dep is None or arr is None:
            return None
        return Move(f"flight {row.flight_number}", origin, destination, (arr - dep) % 1440, departs=dep)
    minutes = _ground_minutes(trip, origin, destination)
    return None if minutes is None else Move(read.mode, origin, destination, minutes)


def _ground_minutes(trip: Trip, origin: str, destination: str) -> int | None:
    """The distance table's duration for a leg it can charge (a row with a distance and a duration in hours)."""
    row = trip.store.distance(origin, destination)
    if row is None or row.duration is None or row.distance is None or "day" in row.duration:
        return None
    return duration_minutes(row.duration)
