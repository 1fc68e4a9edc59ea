"""How far a stay day's day trip reaches (strict Q20), and the day-trip cities the timeline times (Q19).

A stay-day attraction outside the day's city is a day trip to a city of the same state: strict also
bounds it by road distance from the day's city (distance table, a drivable row), since a state can be
1,000 km across and the city file's labels group cities that are not in one state ("England" holds
Birmingham, Manchester, Portsmouth and Worcester).
The longest gold day trip is San Antonio to San Angelo, 339 km. The drive there and back is on the day's
clock (``trip_timeline``): its durations are the distance table's.
"""

from __future__ import annotations

from ..text import distance_km, duration_minutes
from .conventions import CONVENTIONS
from .trip import Trip

DAY_TRIP_KM = CONVENTIONS.day_trip_km  # the default reach; a check reads its mode's (``trip.mode.conventions``)


def day_trip_reach(trip: Trip, here: str, there: str) -> float | None:
    """Road kilometres from ``here`` to ``there`` when a drivable distance row joins them, else None."""
    row = trip.store.distance(here, there)
    if row is None or row.distance is None or row.duration is None or "day" in row.duration:
        return None
    return distance_km(row.distance)


def day_trip(trip: Trip, here: str, away: list[str]) -> tuple[str, int, int] | None:
    """``(city, minutes there, minutes back)`` of a stay day's day trip from ``here``: the first of ``away``
    (its other attraction cities, in the plan's order) of the same state within ``DAY_TRIP_KM`` by a drivable
    row (back by the reverse row, else the same). One only: a second city, or a far one, is Q20's failure."""
    if trip.mode.stay_day_chars:
        return None  # Q1 open: a stay day's items are not placed in cities
    state = trip.store.city_state.get(here)
    for there in away:
        reach = day_trip_reach(trip, here, there)
        if state is None or trip.store.city_state.get(there) != state or reach is None \
                or reach > trip.mode.conventions.day_trip_km:
            continue
        going = _drive_minutes(trip, here, there)
        if going is not None:
            coming = _drive_minutes(trip, there, here)
            return there, going, going if coming is None else coming
    return None


def _drive_minutes(trip: Trip, origin: str, destination: str) -> int | None:
    row = trip.store.distance(origin, destination)
    if row is None or row.duration is None or row.distance is None or "day" in row.duration:
        return None
    return duration_minutes(row.duration)
