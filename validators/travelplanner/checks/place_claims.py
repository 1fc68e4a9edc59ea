"""Strict Q17 and Q22 for one place item: it names one place, and what it states after the city is true.

Read tolerantly (``reading.read_place``), an item may state more than its name and city: the city's
``(State)``, a cost (``Coco Bambu, Rockford: 40``, ``..., Cost: 321 for 3 nights``), the cuisine a restaurant
serves (``Side Wok, Bozeman (Indian)``), a listing's room type and house rules. Each is checked against the row
the item names; a cost may be at most 1 below what the row charges (per person or for the party, per night or for
the nights stated), as a transport's (``stated_values``). Attractions have no price in the database: a cost
stated for one is not checked. A remark the reader cannot place (``child-friendly``, ``morning visit``) states
nothing the database holds and is not held against the item, unless it names a second place of the day's cities
(``Coco Bambu, Rockford (then Flying Mango)``: a meal nothing checks), which fails as unreadable, as does an item
on two lines (upstream reads only the last).
"""

from __future__ import annotations

import re
from typing import Any

from ..reading import PlaceText
from ..store.sandbox import vehicles
from .categories import FALSEHOOD, UNREADABLE, Reason, because
from .place_form import place_form_failure
from .trip import TABLES, Trip

COST_ROUNDING = 1


def place_failure(trip: Trip, table: str, text: str, unit: Any) -> Reason | None:
    """Why an item of ``table`` states more than one place, or something its row does not (None: all true).
    The reason reads after "The <field> in day N ..."."""
    if trip.mode.several_places_per_field:
        return None
    if trip.mode.exact_spelling:
        failure = place_form_failure(trip, text)
        return None if failure is None else because(UNREADABLE, f"names more than one place: {failure} (Q17)")
    read = trip.place(text)
    if read is not None and read.plain:
        return None  # a name and a city, nothing more (most items): nothing else to check
    if read is None:
        return because(UNREADABLE, f"names more than one place: {text!r} holds more than one line (only its last "
                                   f"line is looked up) (Q17)")
    if read.state is not None and read.city is not None and trip.store.city_state.get(read.city) != read.state:
        return because(FALSEHOOD, f"says {read.city} is in {read.state}, but the database's {read.city} is in "
                                  f"{trip.store.city_state.get(read.city)} (Q17)")
    if read.unread and (other := _second_place(trip, read, unit)) is not None:
        return because(UNREADABLE, f"names more than one place: {other!r} in {read.unread[0]!r} after the place "
                                   f"(Q17)")
    rows = trip.places(table, text, unit)
    return _claims(trip, table, read, rows[0]) if rows else None


_ANOTHER = re.compile(r"^(?:then|and|or|plus|also|followed\s+by|after(?:wards)?|before|with|[&/+])\s+"
                      r"(?P<name>[A-Z0-9][\w'’&.-]*(?:\s+[A-Z0-9&][\w'’&.-]*)*)")


def _second_place(trip: Trip, read: PlaceText, unit: Any) -> str | None:
    """A second place the text the reader left unread names: a proper name after "then", "and", "or", ...
    (``then Nonexistent Bistro``), or a place of the day's cities (any table) named whole; None for a remark
    (``child-friendly``, ``or an alternative restaurant``)."""
    for text in read.unread:
        if (m := _ANOTHER.match(text)) is not None:
            return m["name"]
    words = " ".join(read.unread).lower()
    for city in trip.day_cities(unit) or ((read.city,) if read.city else ()):
        for table in TABLES:
            for row in trip.store.in_city(table, city):
                name = row.name.strip()
                if len(name) >= 4 and name.lower() != read.name.lower() and _whole(name.lower(), words):
                    return name
    return None


def _whole(needle: str, text: str) -> bool:
    """``needle`` occurs in ``text`` as whole words: neither side touches a word character (``re``'s ``\\w``:
    a letter, digit or underscore). A scan, not a pattern per name: a city's hundreds of names would each compile
    one (``re`` keeps 512), a cost every plan with a remark paid again."""
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        if (start == 0 or not _word(text[start - 1])) and (end == len(text) or not _word(text[end])):
            return True
        start = text.find(needle, start + 1)
    return False


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


ROW_NUMBERS = {("accommodations", "minimum_nights"): "minimum_nights",
               ("accommodations", "maximum_occupancy"): "maximum_occupancy",
               ("accommodations", "rating"): "review_rate_number", ("restaurants", "rating"): "aggregate_rating"}


def _claims(trip: Trip, table: str, read: PlaceText, row: Any) -> Reason | None:
    people = trip.query.people_number
    for key, stated in read.numbers:
        column = ROW_NUMBERS.get((table, key))
        if column is not None and abs(float(getattr(row, column)) - stated) > 0.05:
            return because(FALSEHOOD, f"states {key.replace('_', ' ')} {stated:g}, but {row.name.strip()} has "
                                      f"{float(getattr(row, column)):g} (Q22)")
    if table == "restaurants":
        for cuisine in read.cuisines:
            if cuisine.lower() not in row.cuisines.lower():
                return because(FALSEHOOD, f"states the cuisine {cuisine}, but {row.name.strip()} serves {row.cuisines} "
                                          f"(Q22)")
        if read.cost is not None:
            least = row.average_cost * (people if read.per == "group" else 1)
            if read.cost < least - COST_ROUNDING:
                return because(FALSEHOOD, f"states cost {read.cost:g}, but {row.name.strip()} costs "
                                          f"{row.average_cost:g} a person (Q22)")
    if table == "accommodations":
        if read.room_type is not None and read.room_type != row.room_type:
            return because(FALSEHOOD, f"states the room type {read.room_type}, but the listing is a {row.room_type} "
                                      f"(Q22)")
        for rule in read.house_rules:
            if rule.lower() not in str(row.house_rules).lower():
                return because(FALSEHOOD, f"states the house rule {rule!r}, but the listing's rules are "
                                          f"{row.house_rules!r} (Q22)")
        for rule in read.allows:
            if rule.lower() in str(row.house_rules).lower():
                return because(FALSEHOOD, f"says the listing allows what its rule {rule!r} forbids (Q22)")
        if read.cost is not None:
            rooms = vehicles(people, row.maximum_occupancy) if read.per == "group" else 1
            least = row.price * rooms * (read.nights or 1)
            if read.cost < least - COST_ROUNDING:
                return because(FALSEHOOD, f"states cost {read.cost:g}, but the listing costs {row.price:g} a night "
                                          f"(Q22)")
    return None
