"""Strict Q16 and Q22: a transport string names a leg the database has, and every value it states is its row's.

Upstream checks only the identifying part of a transport string (the flight number on its route; a ground leg
that has a distance row) and charges from the row, so a plan may state any time, duration or distance. Strict
reads the string (``Trip.transport``: the tolerant reader of ``reading.py``, or with Q22 open the canonical
string of notes §2) and compares each value it states with the row it names; a value it leaves out claims
nothing. Tolerances are the train gold plans' own deviations (measured over all 45, docs/modes.md): flight times
exact (no gold plan deviates); ground durations within 6 minutes (the gold maximum: "14 hours 59 mins" stated for
15 hours 5 mins); distances within 3 % (the gold maximum is 2.72 %: 1,626 km stated for 1,583 km). A stated cost
may be at most 1 below what the row charges (upstream's int(km x 0.05) a car, int(km) a taxi, a flight's price a
seat; or those times the cars, taxis or seats of the party, or per person, as the string says): a lower one
(``cost: 0`` for a 71 drive) is false. A higher one must still be a cost the leg can have (``cost_bands``): one of
those readings at any distance the 3 % tolerance admits, or the charge for each person of the party (a model's
reading of the tool's cost: a GPT-4 plan states 124 for a 31 drive of 4 people); a flight's price exactly, give or
take the rounding; a self-driving leg may also state the taxi fare (two gold plans do: 2377 for a 118 drive of
2,377 km, 819 for a 40 drive of 819 km). ``cost: 14330`` for a 71 drive is none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..reading import FLIGHT, TransportText, minutes
from ..store.sandbox import Flight, ground_cost, vehicles
from ..text import before_parenthesis, clock_minutes, distance_km, duration_minutes
from .categories import FALSEHOOD, UNMET, UNREADABLE, Reason, because
from .place_form import city_form_failure
from .trip import Trip

DURATION_TOLERANCE_MIN = 6
DISTANCE_TOLERANCE = 0.03
COST_ROUNDING = 1
FARE_PER_KM = {"self-driving": 0.05, "taxi": 1.0}  # upstream's charge per vehicle (notes §3)
SEATS = {"self-driving": 5, "taxi": 4}  # per vehicle, as the budget counts them (notes §5.1)
MILE_KM = 1.609344
LABELS = {"flight_number": "flight number", "departure_time": "departure time", "arrival_time": "arrival time",
          "duration": "duration", "distance": "distance", "cost": "cost", "date": "date"}


def transport_failure(trip: Trip, i: int, unit: dict, value: str) -> Reason | None:
    """Strict's Within Sandbox for day ``i``'s transport, read tolerantly (Q22 closed): it names one mode of the
    database and its leg (stated, or the day's), the leg has a row, and every value it states is that row's."""
    where = f"The transportation in day {i + 1}"
    read = trip.transport(value)
    if read is None:
        return because(UNREADABLE, f"{where} is too long to be one transport ({len(value)} characters).")
    named = (*read.modes, *read.other_modes)
    if len(named) > 1:
        if trip.mode.mixed_transport_words:
            return None  # Q14 open: several modes are not read (only the monitor reopens it)
        return because(UNMET, f"{where} names more than one mode ({', '.join(named)}): a day travels by one.")
    if not read.modes:
        if trip.mode.unchecked_transport:
            return None  # Q5 open: text that is no mode of the database is neither checked nor charged
        if read.other_modes:
            return because(FALSEHOOD, f"{where} names {read.other_modes[0]}, which the database does not have (it "
                                      f"has flights, self-driving and taxis).")
        return because(UNMET, f"{where} names no mode (flight, self-driving or taxi): how the day travels is not "
                              f"stated.")
    if len(read.legs) > 1:
        return because(UNMET, f"{where} names {len(read.legs)} legs ({_legs(read)}): a day of the plan travels "
                              f"one leg.")
    origin, destination = _leg(trip, unit, read)
    for city in (c for c in read.legs[0] if c) if read.legs else ():
        if failure := city_form_failure(trip, city):
            return because(UNREADABLE, f"{where} names a city that says more than its city: {failure} (Q16).")
    if origin is None or destination is None:
        return because(UNMET, f"{where} names no leg, and the day names none: where it goes is not stated.")
    mode = read.mode or ""
    origin, destination = trip.city(origin), trip.city(destination)
    if mode == FLIGHT:
        number = read.value("flight_number")
        if number is None:
            return because(UNMET, f"{where} is a flight without its number: which flight is not stated.")
        row = trip.store.flight_on_route(str(number), origin, destination, trip.flight_date(i))
        if row is None:
            return because(FALSEHOOD, f"The flight number in day {i + 1} is invalid in the sandbox.")
        return None if trip.mode.unchecked_stated_values else _flight_values(trip, i, read, row, where)
    if ground_cost(trip.store, origin, destination, mode) is None:
        return because(FALSEHOOD, f"The {mode} in day {i + 1} is invalid in the sandbox.")
    if trip.mode.unchecked_stated_values:
        return None  # Q16 open: the values a string states are not read
    return _ground_values(trip, i, read, origin, destination, where)


def stated_value_failure(trip: Trip, i: int, value: str) -> Reason | None:
    """Q16 alone (Q22 open: the canonical string): why day ``i``'s transport states what its row does not."""
    where = f"The transportation in day {i + 1}"
    read = trip.transport(value)
    if read is None:
        return because(UNREADABLE, f"{where} cannot be read as a flight, self-driving or taxi string (Q16: its "
                                   f"claims are unchecked).")
    for city in read.legs[0]:
        if city and (failure := city_form_failure(trip, city)):
            return because(UNREADABLE, f"{where} names a city that says more than its city: {failure} (Q16).")
    origin, destination = (trip.city(c or "") for c in read.legs[0])
    if read.mode == FLIGHT:
        row = trip.store.flight_on_route(str(read.value("flight_number")), origin, destination, trip.flight_date(i))
        return None if row is None else _flight_values(trip, i, read, row, where)  # the sandbox check names it
    leg = trip.store.distance(before_parenthesis(origin), before_parenthesis(destination))
    if leg is None or leg.duration is None or leg.distance is None:
        return None  # the sandbox check fails the leg
    return _ground_values(trip, i, read, origin, destination, where)


def _leg(trip: Trip, unit: dict, read: TransportText) -> tuple[str | None, str | None]:
    """The leg a reading travels: its own, with what it leaves out read from the day's ``current_city``."""
    stated_from, stated_to = read.legs[0] if read.legs else (None, None)
    day_from, day_to = trip.from_to(unit["current_city"]) if isinstance(unit.get("current_city"), str) else (None,
                                                                                                          None)
    if day_from is None and isinstance(unit.get("current_city"), str):  # a stay day: a ride within its city
        day_from = day_to = unit["current_city"]
    return stated_from or day_from, stated_to or day_to


def _legs(read: TransportText) -> str:
    return "; ".join(f"{a or '?'} to {b}" for a, b in read.legs)


def _stated(read: TransportText, key: str) -> tuple[str, float | str | None] | None:
    """``(as written, value)`` of a stated field; the value None when it is not of its kind (``15:4⁰``)."""
    stated = read.values.get(key)
    if stated is not None:
        return stated.text, stated.value
    if not read.wrong:  # most strings: nothing mislabelled (each string is asked up to eight fields)
        return None
    wrong = next((text for k, text in read.wrong if k == key), None)
    return None if wrong is None else (wrong, None)


def _flight_values(trip: Trip, i: int, read: TransportText, row: Flight, where: str) -> Reason | None:
    for key, actual in (("departure_time", row.dep_time), ("arrival_time", row.arr_time)):
        if (stated := _stated(read, key)) is not None and stated[1] != clock_minutes(actual):
            return because(FALSEHOOD, f"{where} states {LABELS[key]} {stated[0]}, but flight {row.flight_number} has "
                                      f"{actual} (Q16).")
    if (stated := _stated(read, "duration")) is not None:
        took = minutes(row.actual_elapsed_time)
        if took is not None and (stated[1] is None or abs(float(stated[1]) - took) > DURATION_TOLERANCE_MIN):
            return because(FALSEHOOD, f"{where} states duration {stated[0]!r}, but flight {row.flight_number} takes "
                                      f"{row.actual_elapsed_time} (Q16: tolerance {DURATION_TOLERANCE_MIN} mins).")
    if (stated := _stated(read, "distance")) is not None:
        unit = read.values["distance"].unit if "distance" in read.values else ""
        miles = None if stated[1] is None else float(stated[1]) / (MILE_KM if unit == "km" else 1.0)
        if miles is None or abs(miles - row.distance) > DISTANCE_TOLERANCE * row.distance:
            return because(FALSEHOOD, f"{where} states distance {stated[0]!r}, but flight {row.flight_number} flies "
                                      f"{row.distance:g} miles ({row.distance * MILE_KM:.0f} km; Q16: tolerance "
                                      f"{DISTANCE_TOLERANCE:.0%}).")
    if (failure := _date(trip, i, read, where)) is not None:
        return failure
    seats = trip.query.people_number
    return _cost(read, row.price, seats, seats, where, f"flight {row.flight_number} costs {row.price:g} a seat",
                 _flight_bands(row.price, seats))


def _ground_values(trip: Trip, i: int, read: TransportText, origin: str, destination: str,
                   where: str) -> Reason | None:
    leg = trip.store.distance(before_parenthesis(origin), before_parenthesis(destination))
    if leg is None or leg.duration is None or leg.distance is None:
        return None  # no row to compare with (the sandbox check names a leg it cannot charge)
    took = duration_minutes(leg.duration)
    if (stated := _stated(read, "duration")) is not None:
        if stated[1] is None or took is None or abs(float(stated[1]) - took) > DURATION_TOLERANCE_MIN:
            return because(FALSEHOOD, f"{where} states duration {stated[0]!r}, but {origin} to {destination} takes "
                                      f"{leg.duration} (Q16: tolerance {DURATION_TOLERANCE_MIN} mins).")
    if (stated := _stated(read, "distance")) is not None:
        unit = read.values["distance"].unit if "distance" in read.values else "km"
        km = None if stated[1] is None else float(stated[1]) * (MILE_KM if unit == "mi" else 1.0)
        actual = distance_km(leg.distance)
        if km is None or actual is None or abs(km - actual) > DISTANCE_TOLERANCE * actual:
            return because(FALSEHOOD, f"{where} states distance {stated[0]!r}, but {origin} to {destination} is "
                                      f"{leg.distance} (Q16: tolerance {DISTANCE_TOLERANCE:.0%}).")
    dep, arr = _stated(read, "departure_time"), _stated(read, "arrival_time")
    if dep is not None and arr is not None and took is not None:
        if dep[1] is None or arr[1] is None or \
                abs((float(arr[1]) - float(dep[1])) % 1440 - took % 1440) > DURATION_TOLERANCE_MIN:
            return because(FALSEHOOD, f"{where} leaves at {dep[0]} and arrives at {arr[0]}, but {origin} to "
                                      f"{destination} takes {leg.duration} (Q16: tolerance {DURATION_TOLERANCE_MIN} "
                                      f"mins).")
    if (failure := _date(trip, i, read, where)) is not None:
        return failure
    mode = read.mode or ""
    charged = ground_cost(trip.store, origin, destination, mode)
    if charged is None:
        return None
    vehicle = "car" if mode == "self-driving" else "taxi"
    fleet = vehicles(trip.query.people_number, 5 if vehicle == "car" else 4)
    km = distance_km(leg.distance)
    bands = _cost_bands(km, trip.query.people_number, mode, read.per) if km is not None else None
    return _cost(read, charged, fleet, trip.query.people_number, where,
                 f"{origin} to {destination} is charged {charged} a {vehicle}", bands)


def _date(trip: Trip, i: int, read: TransportText, where: str) -> Reason | None:
    if (stated := _stated(read, "date")) is None or i >= len(trip.query.date):
        return None
    if stated[1] != trip.query.date[i]:
        return because(FALSEHOOD, f"{where} states date {stated[0]}, but day {i + 1} is {trip.query.date[i]} (Q16).")
    return None


def _cost(read: TransportText, unit_cost: float, units: int, people: int, where: str, charge: str,
          bands: Sequence[tuple[str, float, float]] | None = None) -> Reason | None:
    """A stated cost may be at most ``COST_ROUNDING`` below the charge it can mean: one car, taxi or seat
    (``unit_cost``), the party's ``units`` of them, or per person when the string says so; and above, it must
    fall in one of ``bands`` (``cost_bands``: the costs the leg can have)."""
    if (stated := _stated(read, "cost")) is None:
        return None
    meanings = {"person": unit_cost * units / max(people, 1), "group": unit_cost * units}
    least = min(unit_cost, meanings.get(read.per, unit_cost))
    if stated[1] is None or float(stated[1]) < least - COST_ROUNDING:
        return because(FALSEHOOD, f"{where} states cost {stated[0]}, but {charge} (Q16: a stated cost may be at most "
                                  f"{COST_ROUNDING} below the charge).")
    if bands and not any(low <= float(stated[1]) <= high for _, low, high in bands):
        can = "; ".join(f"{what} {low:g}-{high:g}" for what, low, high in bands)
        return because(FALSEHOOD, f"{where} states cost {stated[0]}, but {charge}, which no reading of the cost "
                                  f"reaches (Q16: a stated cost must be one the leg can have: {can}).")
    return None


def cost_bands(km: float, people: int, mode: str, per: str | None = None) -> list[tuple[str, float, float]]:
    """``(what, lowest, highest)`` of every cost a ground leg of ``km`` can state: its mode's charge (at most
    ``COST_ROUNDING`` below it, at most what the distance tolerance's longest reading charges above it), for
    one vehicle, for the party's, per person when the string says so, and for each person of the party (the
    charge read as a person's); a self-driving leg's cost may also be the taxi fare (as two gold plans state it)."""
    bands: list[tuple[str, float, float]] = []
    for fare in (mode, "taxi") if mode == "self-driving" else (mode,):
        if fare not in FARE_PER_KM:
            continue
        charge = int(km * FARE_PER_KM[fare])
        highest = max(charge, int(km * (1 + DISTANCE_TOLERANCE) * FARE_PER_KM[fare]))
        name = "a car" if fare == "self-driving" else "a taxi"
        bands.append((name, charge - COST_ROUNDING, highest))
        count = vehicles(people, SEATS[fare])
        if count > 1:
            bands.append((f"{count} {name[2:]}s", count * charge - COST_ROUNDING, count * highest))
        if per == "person" and count > 0 and people > 0:
            bands.append((f"{name[2:]}s per person", count * charge / people - COST_ROUNDING,
                          count * highest / people))
        if people > count:  # the charge read as each person's (a GPT-4 plan states 124 for a 31 drive of 4 people)
            bands.append((f"{name[2:]} each for {people}", people * charge - COST_ROUNDING, people * highest))
    return bands


@lru_cache(maxsize=4096)
def _cost_bands(km: float, people: int, mode: str, per: str | None) -> tuple[tuple[str, float, float], ...]:
    """``cost_bands``, once per leg and party (a batch's plans travel the same legs)."""
    return tuple(cost_bands(km, people, mode, per))


def _flight_bands(price: float, seats: int) -> list[tuple[str, float, float]]:
    """The costs a flight can state: a seat's price, the party's seats, per person; each give or take the rounding."""
    bands = [("a seat", price - COST_ROUNDING, price + COST_ROUNDING)]
    if seats > 1:
        bands.append((f"{seats} seats", seats * price - COST_ROUNDING, seats * price + COST_ROUNDING))
    return bands
