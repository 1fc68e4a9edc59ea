"""Where the traveller can be: strict Q19 (a flight day's times) and Q20 (how far a day trip reaches).

Q19. On a flight day the traveller is in the departure city until the flight leaves and in the arrival
city once it lands (the database gives both times; an arrival before the departure is the next day). A
meal or attraction in the departure city needs the flight to leave after its window opens; one in the
arrival city needs it to land before its window closes. The windows are ordinary hours, checked against
every train gold plan (none fails; the tightest gold cases in docs/modes.md). Ground legs state no
departure time, so they are not timed (docs/modes.md says why).

Across midnight: a flight that lands after midnight (an arrival earlier than its departure) keeps the
traveller on the plane into the next day, so that day's meals, sights and flight must come after it lands.

Q20. A stay-day attraction outside the day's city is a day trip to a city of the same state: strict also
bounds it by road distance from the day's city (distance table, a drivable row), since a state can be
1,000 km across and the city file's labels group cities that are not in one state ("England" holds
Birmingham, Manchester, Portsmouth and Worcester).
The longest gold day trip is San Antonio to San Angelo, 339 km.
"""

from __future__ import annotations

from ..text import clock_minutes, distance_km, parse_transport
from .trip import MEALS, Trip

WINDOWS = {"breakfast": ("06:00", "10:30"), "lunch": ("11:00", "15:00"), "dinner": ("17:00", "22:00"),
           "attraction": ("08:00", "20:00")}
DAY_TRIP_KM = 340.0


def _minutes(text: str) -> int:
    value = clock_minutes(text)
    assert value is not None, text
    return value


OPENS = {k: _minutes(a) for k, (a, _) in WINDOWS.items()}
CLOSES = {k: _minutes(b) for k, (_, b) in WINDOWS.items()}


def flight_times(trip: Trip, i: int, value: str) -> tuple[str, int, int] | None:
    """(flight number, departure, arrival) in minutes of day ``i`` for a flight string whose row exists."""
    fields = trip.memo.parse(parse_transport, value)
    if fields is None or fields["mode"] != "flight":
        return None
    row = trip.store.flight_on_route(fields["flight_number"], trip.city(fields["from"]), trip.city(fields["to"]),
                                     trip.flight_date(i))
    if row is None:
        return None
    dep, arr = clock_minutes(row.dep_time), clock_minutes(row.arr_time)
    if dep is None or arr is None:
        return None
    return row.flight_number, dep, arr if arr >= dep else arr + 1440


def presence_failure(trip: Trip, i: int, unit: dict, cities: list[str]) -> str | None:
    """Why day ``i`` (a travel day from ``cities[0]`` to ``cities[-1]``) has the traveller in two places."""
    value = unit.get("transportation")
    if not isinstance(value, str) or trip.memo.transport_kind(value) != "Flight":
        return None  # ground legs are not timed; a mixed string fails Q14
    times = flight_times(trip, i, value)
    if times is None:
        return None
    number, dep, arr = times
    origin, destination = cities[0], cities[-1]
    for kind, item in _timed_items(trip, unit):
        city = trip.item_city(item)
        if city == origin and dep < OPENS[kind]:
            return (f"The {kind} in day {i + 1} is in {origin} after flight {number} leaves at {_clock(dep)} "
                    f"({kind} opens at {WINDOWS[kind][0]}).")
        if city == destination and arr > CLOSES[kind]:
            return (f"The {kind} in day {i + 1} is in {destination} before flight {number} lands at {_clock(arr)} "
                    f"({kind} closes at {WINDOWS[kind][1]}).")
    return None


def overnight_failure(trip: Trip, i: int, unit: dict) -> str | None:
    """Q19 across midnight: day ``i`` starts on the plane when day ``i - 1``'s flight lands after midnight,
    so no meal or sight of day ``i`` may close, and no flight of day ``i`` leave, before it lands."""
    before = trip.days[i - 1]
    value = before.get("transportation") if isinstance(before, dict) else None
    if not isinstance(value, str) or trip.memo.transport_kind(value) != "Flight":
        return None
    times = flight_times(trip, i - 1, value)
    if times is None or times[2] < 1440:
        return None
    number, landing = times[0], times[2] - 1440
    for kind, item in _timed_items(trip, unit):
        if CLOSES[kind] < landing:
            return (f"The {kind} in day {i + 1} ({item}) closes at {WINDOWS[kind][1]}, before flight {number} of "
                    f"day {i} lands at {_clock(landing)}.")
    value = unit.get("transportation")
    if isinstance(value, str) and trip.memo.transport_kind(value) == "Flight":
        leaving = flight_times(trip, i, value)
        if leaving is not None and leaving[1] < landing:
            return (f"The flight in day {i + 1} leaves at {_clock(leaving[1])}, before flight {number} of day {i} "
                    f"lands at {_clock(landing)}.")
    return None


def _timed_items(trip: Trip, unit: dict) -> list[tuple[str, str]]:
    """(window, item) for the day's filled meals and attraction segments."""
    fields = [(meal, unit.get(meal)) for meal in MEALS]
    if isinstance(unit.get("attraction"), str) and trip.filled(unit["attraction"]):
        fields += [("attraction", item) for item in trip.items(unit["attraction"])]
    return [(kind, item) for kind, item in fields if isinstance(item, str) and trip.filled(item)]


def _clock(minutes: int) -> str:
    day, rest = divmod(minutes, 1440)
    return f"{rest // 60:02d}:{rest % 60:02d}" + (" the next day" if day else "")


def day_trip_reach(trip: Trip, here: str, there: str) -> float | None:
    """Road kilometres from ``here`` to ``there`` when a drivable distance row joins them, else None."""
    row = trip.store.distance(here, there)
    if row is None or row.distance is None or row.duration is None or "day" in row.duration:
        return None
    return distance_km(row.distance)
