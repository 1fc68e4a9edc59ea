"""The 5 hard TravelPlanner checks (notes §5): budget, house rule, cuisine, room type, transportation.

The cost model is upstream's: every charged value comes from the database row an item names, never from
the plan's own text.
"""

from __future__ import annotations

from ..query import HOUSE_RULE_TEXT, ROOM_TYPE_TEXT
from ..reading import DRIVE, FLIGHT
from ..store.sandbox import ground_cost, vehicles
from ..text import flight_number
from .categories import UNMET, because
from .trip import MEALS, Outcome, Trip, day_leg


def total_cost(trip: Trip) -> float:
    """The upstream cost model (notes §5.1): flights × people, cars/taxis per vehicle, meals × people,
    rooms per night; unmatched items add nothing."""
    q, total = trip.query, 0.0
    for i, unit in enumerate(trip.days):
        value = unit["transportation"]
        if trip.filled(value) and not trip.mode.exact_spelling:
            total += _read_leg_cost(trip, i, unit, value)
        elif trip.filled(value):
            origin, destination = day_leg(trip, unit, value)
            if origin is not None and destination is not None:
                low = value.lower()
                if "flight number" in low:
                    flight = _priced_flight(trip, i, value, origin, destination)
                    if flight is not None:
                        total += flight.price * q.people_number
                elif "self-driving" in low:
                    total += _charged(trip, origin, destination, "self-driving") * vehicles(q.people_number, 5)
                elif "taxi" in low:
                    total += _charged(trip, origin, destination, "taxi") * vehicles(q.people_number, 4)
        for meal in MEALS:
            if trip.filled(unit[meal]):
                rows = trip.places("restaurants", unit[meal], unit)
                if rows:
                    total += rows[0].average_cost * q.people_number
        if trip.filled(unit["accommodation"]):
            rows = trip.places("accommodations", unit["accommodation"], unit)
            if rows:
                total += rows[0].price * vehicles(q.people_number, rows[0].maximum_occupancy)
    return total


def _read_leg_cost(trip: Trip, i: int, unit: dict, value: str) -> float:
    """Strict (Q22): the leg as the tolerant reader reads it, charged from its row (nothing for a leg Within
    Sandbox fails: the hard checks run only on plans that pass it)."""
    read = trip.transport(value)
    if read is None or read.mode is None or len(read.legs) > 1:
        return 0.0
    stated_from, stated_to = read.leg if read.legs else (None, None)
    day_from, day_to = trip.from_to(unit["current_city"])
    origin, destination = stated_from or day_from, stated_to or day_to
    if origin is None or destination is None:
        return 0.0
    people = trip.query.people_number
    if read.mode == FLIGHT:
        number = read.value("flight_number")
        row = None if number is None else trip.store.flight_on_route(
            str(number), trip.city(origin), trip.city(destination), trip.flight_date(i))
        return 0.0 if row is None else row.price * people
    charged = ground_cost(trip.store, trip.city(origin), trip.city(destination), read.mode)
    seats = 5 if read.mode == DRIVE else 4
    return 0.0 if charged is None else charged * vehicles(people, seats)


def _charged(trip: Trip, origin: str, destination: str, mode: str) -> int:
    """A ground leg's cost per vehicle; a leg without a usable distance row raises TypeError, where upstream's
    ``None * vehicles`` raises it (its run stops; here the plan is unevaluable, notes §7)."""
    cost = ground_cost(trip.store, trip.city(origin), trip.city(destination), mode)
    if cost is None:
        raise TypeError(f"no usable distance from {origin} to {destination}: upstream's cost is None")
    return cost


def _priced_flight(trip: Trip, i: int, value: str, origin: str, destination: str):
    number = flight_number(value)
    if trip.mode.substring_match:
        return trip.store.first_flight(number)  # Q3: the first row with that number, any route
    return trip.store.flight_on_route(number, trip.city(origin), trip.city(destination), trip.flight_date(i))


def valid_cost(trip: Trip) -> Outcome:
    cost, budget = total_cost(trip), trip.query.budget
    if cost <= budget:
        return True, f"The total cost {cost:g} is within the budget {budget:g}."
    return False, because(UNMET, f"The total cost {cost:g} exceeds the budget {budget:g}.")


def _stays(trip: Trip):
    """The first matching database row of every day's accommodation that has one."""
    for unit in trip.days:
        if trip.filled(unit["accommodation"]):
            rows = trip.places("accommodations", unit["accommodation"], unit)
            if rows:
                yield rows[0]


def valid_room_rule(trip: Trip) -> Outcome:
    rule = trip.query.local_constraint.house_rule
    if rule is None:
        return None, "No house rule was asked for."
    banned = HOUSE_RULE_TEXT.get(rule)
    for row in _stays(trip):
        if banned is not None and banned in str(row.house_rules):
            return False, because(UNMET, f"The house rule should be {rule}.")
    return True, f"Every accommodation allows {rule}."


def valid_room_type(trip: Trip) -> Outcome:
    wanted = trip.query.local_constraint.room_type
    if wanted is None:
        return None, "No room type was asked for."
    for row in _stays(trip):
        if wanted == "not shared room":
            bad = row.room_type == "Shared room"
        else:
            bad = wanted in ROOM_TYPE_TEXT and row.room_type != ROOM_TYPE_TEXT[wanted]
        if bad:
            return False, because(UNMET, f"The room type should be {wanted}.")
    return True, f"Every accommodation is a {wanted}."


def valid_cuisine(trip: Trip) -> Outcome:
    wanted = trip.query.local_constraint.cuisine
    if not wanted:
        return None, "No cuisine was asked for."
    covered: set[str] = set()
    for unit in trip.days:
        for meal in MEALS:
            if not trip.filled(unit[meal]):
                continue
            if trip.item_city(unit[meal], unit) == trip.query.org:
                if trip.mode.cuisine_skips_day:
                    break  # Q9: upstream's `continue` leaves the day's meal loop
                continue
            rows = trip.places("restaurants", unit[meal], unit)
            if rows:
                covered.update(c for c in wanted if c in rows[0].cuisines)
    for cuisine in wanted:
        if cuisine not in covered:
            return False, because(UNMET, f"The cuisine {cuisine} is not satisfied.")
    return True, f"Every cuisine of {wanted} is served."


def valid_transportation(trip: Trip) -> Outcome:
    rule = trip.query.local_constraint.transportation
    if rule is None:
        return None, "No transportation rule was asked for."
    for unit in trip.days:
        value = unit["transportation"]
        if not trip.filled(value):
            continue
        text = value if trip.mode.case_sensitive_transport else value.lower()
        flight, drive = ("Flight", "Self-driving") if trip.mode.case_sensitive_transport else ("flight", "self-driving")
        read = None if trip.mode.exact_spelling or trip.mode.case_sensitive_transport else trip.transport(value)
        modes = () if read is None else read.modes  # Q22: "Self-drive" is self-driving too
        if (rule == "no flight" and (flight in text or FLIGHT in modes)) or \
                (rule == "no self-driving" and (drive in text or DRIVE in modes)):
            return False, because(UNMET, f"The transportation should not be {rule}.")
    return True, f"The plan respects {rule}."
