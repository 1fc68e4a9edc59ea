"""Strict Q16: the values a transport string states (times, duration, distance) must be its row's.

Upstream checks only the identifying part of a transport string (the flight number on its route; a
ground leg that has a distance row) and charges from the row, so a plan may state any departure time,
arrival time, duration or distance. Strict reads the canonical string field by field and compares each
stated value with the database row it names. Tolerances are the train gold plans' own deviations
(measured over all 45, docs/modes.md): flight times exact (no gold plan deviates); ground durations
within 6 minutes (the gold maximum: "14 hours 59 mins" stated for 15 hours 5 mins); distances within 3 %
(the gold maximum is 2.72 %: 1,626 km stated for 1,583 km). A stated cost may be at most 1 below what
the row charges a vehicle (upstream's int(km x 0.05) a car, int(km) a taxi; the gold plans' largest
understatement is 1, a rounding): a lower one (``cost: 0`` for a 71 drive) is false. A higher one must
still be a cost the leg can have (``ground_cost_bands``): what it costs by its mode for one vehicle or for
the party's vehicles, at any distance the 3 % admits; a self-driving leg may also state the taxi fare (two
gold plans do: 2377 for a 118 drive of 2,377 km, 819 for a 40 drive of 819 km). ``cost: 14330`` for a 71
drive is none of them.
"""

from __future__ import annotations

from ..store.sandbox import ground_cost, vehicles
from ..text import before_parenthesis, clock_minutes, distance_km, duration_minutes, parse_transport
from .place_form import city_form_failure
from .trip import Trip

DURATION_TOLERANCE_MIN = 6
DISTANCE_TOLERANCE = 0.03
COST_ROUNDING = 1
FARE_PER_KM = {"self-driving": 0.05, "taxi": 1.0}  # upstream's charge per vehicle (notes §3)
SEATS = {"self-driving": 5, "taxi": 4}  # per vehicle, as the budget counts them (notes §5.1)


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
        vehicle = "car" if fields["mode"] == "self-driving" else "taxi"
        if charged is not None and (stated is None or stated < charged - COST_ROUNDING):
            return (f"{where} states cost {fields['cost']}, but {origin} to {destination} is charged {charged} a "
                    f"{vehicle} (Q16: a stated cost may be at most {COST_ROUNDING} below the charge).")
        km = distance_km(leg.distance)
        if charged is not None and stated is not None and km is not None:
            bands = ground_cost_bands(km, trip.query.people_number, fields["mode"])
            if not any(low <= stated <= high for _, low, high in bands):
                can = "; ".join(f"{what} {low:g}-{high:g}" for what, low, high in bands)
                return (f"{where} states cost {fields['cost']}, but {origin} to {destination} ({leg.distance}) costs "
                        f"{charged} a {vehicle}, which no reading of the cost reaches (Q16: a stated cost must be "
                        f"one the leg can have: {can}).")
    return None


def ground_cost_bands(km: float, people: int, mode: str) -> list[tuple[str, int, int]]:
    """``(what, lowest, highest)`` of every cost a ground leg of ``km`` can state: its mode's charge (at most
    ``COST_ROUNDING`` below it, at most what the distance tolerance's longest reading charges above it), for
    one vehicle and for the party's; a self-driving leg's cost may also be the taxi fare (as gold plans state)."""
    bands = []
    for fare in (mode, "taxi") if mode == "self-driving" else (mode,):
        charge = int(km * FARE_PER_KM[fare])
        highest = max(charge, int(km * (1 + DISTANCE_TOLERANCE) * FARE_PER_KM[fare]))
        name = "a car" if fare == "self-driving" else "a taxi"
        bands.append((name, charge - COST_ROUNDING, highest))
        count = vehicles(people, SEATS[fare])
        if count > 1:
            bands.append((f"{count} {name[2:]}s", count * charge - COST_ROUNDING, count * highest))
    return bands


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:  # "1.2.3" matches the string's digits-and-dots pattern
        return None
