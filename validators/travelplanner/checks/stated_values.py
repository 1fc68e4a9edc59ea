"""Strict Q16: the values a transport string states (times, duration, distance) must be its row's.

Upstream checks only the identifying part of a transport string (the flight number on its route; a
ground leg that has a distance row) and charges from the row, so a plan may state any departure time,
arrival time, duration or distance. Strict reads the canonical string field by field and compares each
stated value with the database row it names. Tolerances are the train gold plans' own deviations
(measured over all 45, docs/modes.md): flight times exact (no gold plan deviates); ground durations
within 6 minutes (the gold maximum: "14 hours 59 mins" stated for 15 hours 5 mins); distances within 3 %
(the gold maximum is 2.72 %: 1,626 km stated for 1,583 km). A stated cost may be at most 1 below what
the row charges a vehicle (upstream's int(km x 0.05) a car, int(km) a taxi; the gold plans' largest
understatement is 1, a rounding): a lower one (``cost: 0`` for a 71 drive) is false. An overstatement is
allowed, since gold plans state costs far too high (2377 for a 118 drive) and the budget charges the
row's cost anyway.
"""

from __future__ import annotations

from ..store.sandbox import ground_cost
from ..text import before_parenthesis, clock_minutes, distance_km, duration_minutes, parse_transport
from .place_form import city_form_failure
from .trip import Trip

DURATION_TOLERANCE_MIN = 6
DISTANCE_TOLERANCE = 0.03
COST_ROUNDING = 1


def stated_value_failure(trip: Trip, i: int, value: str) -> str | None:
    """Why day ``i``'s transport string states something its row does not (None when all agree)."""
    where = f"The transportation in day {i + 1}"
    fields = trip.memo.parse(parse_transport, value)
    if fields is None:
        return f"{where} cannot be read as a flight, self-driving or taxi string (Q16: its claims are unchecked)."
    for key in ("from", "to"):
        if failure := city_form_failure(trip, fields[key]):
            return f"{where} names a city that says more than its city: {failure} (Q16)."
    origin, destination = trip.city(fields["from"]), trip.city(fields["to"])
    if fields["mode"] == "flight":
        row = trip.store.flight_on_route(fields["flight_number"], origin, destination, trip.flight_date(i))
        if row is None:
            return None  # the sandbox check names the missing flight
        for key, actual in (("departure_time", row.dep_time), ("arrival_time", row.arr_time)):
            if key in fields and clock_minutes(fields[key]) != clock_minutes(actual):
                label = key.replace("_", " ")
                return f"{where} states {label} {fields[key]}, but flight {row.flight_number} has {actual} (Q16)."
        return None
    leg = trip.store.distance(before_parenthesis(origin), before_parenthesis(destination))
    if leg is None or leg.duration is None or leg.distance is None:
        return None  # the sandbox check fails the leg
    if "duration" in fields:
        stated_min, actual_min = duration_minutes(fields["duration"]), duration_minutes(leg.duration)
        if stated_min is None or actual_min is None or abs(stated_min - actual_min) > DURATION_TOLERANCE_MIN:
            return (f"{where} states duration {fields['duration']!r}, but {origin} to {destination} takes "
                    f"{leg.duration} (Q16: tolerance {DURATION_TOLERANCE_MIN} mins).")
    if "distance" in fields:
        stated_km, actual_km = distance_km(fields["distance"]), distance_km(leg.distance)
        if stated_km is None or actual_km is None or abs(stated_km - actual_km) > DISTANCE_TOLERANCE * actual_km:
            return (f"{where} states distance {fields['distance']!r}, but {origin} to {destination} is "
                    f"{leg.distance} (Q16: tolerance {DISTANCE_TOLERANCE:.0%}).")
    if "cost" in fields:
        charged = ground_cost(trip.store, origin, destination, fields["mode"])
        stated = _number(fields["cost"])
        if charged is not None and (stated is None or stated < charged - COST_ROUNDING):
            vehicle = "car" if fields["mode"] == "self-driving" else "taxi"
            return (f"{where} states cost {fields['cost']}, but {origin} to {destination} is charged {charged} a "
                    f"{vehicle} (Q16: a stated cost may be at most {COST_ROUNDING} below the charge).")
    return None


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:  # "1.2.3" matches the string's digits-and-dots pattern
        return None
