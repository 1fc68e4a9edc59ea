"""The structured plan converts one-to-one: every typed field means exactly what the checks read.

The checks read a structured answer through its upstream-string conversion, whose parsers split on
commas, semicolons, line breaks and the words ``from``/``to``. A typed value holding one of those would
be read as something else (``"Nonexistent Bistro\\n<real name>"`` as the real place, an attraction
``"A, City;B"`` as two, a ``to`` of ``"Rockford, then on to Paris"`` as Rockford). So the gate converts
each day, reads the strings back with the checks' own parsers, and rejects the answer, naming the
field's path, wherever what is read is not what was typed. Day numbers must be 1, 2, ... in order.
"""

from __future__ import annotations

from typing import Any

from ..checks.place_form import one_line
from ..text import attraction_items, extract_from_to, modes_named, name_city, parse_transport

Failure = tuple[list[Any], str]
PLACES = ("breakfast", "lunch", "dinner", "accommodation")


def _lines(value: str) -> bool:
    return not one_line(value)


def _place(path: list[Any], place: dict) -> Failure | None:
    """``Name, City`` reads back as typed when neither holds a line break and the city holds no comma:
    the split is then at the comma the conversion wrote (``tests/travelplanner/test_conversion.py``
    reads accepted places back with ``name_city`` to show it)."""
    for key in ("name", "city"):
        if _lines(place[key]):
            return [*path, key], "holds a line break: the checker reads only the last line"
        if not place[key].strip():
            return [*path, key], "is blank: it names nothing"
    if "," in place["city"]:
        name, city = name_city(f"{place['name']}, {place['city']}")
        return [*path, "city"], f"is read as {city!r} with the name {name!r}: a city holds no comma"
    return None


def _attraction(path: list[Any], place: dict) -> Failure | None:
    for key in ("name", "city"):
        if ";" in place[key]:
            return [*path, key], "holds ';', which separates attractions: it would be read as two"
    return _place(path, place)


def _city(path: list[Any], value: dict) -> Failure | None:
    if "stay" in value:
        stay = value["stay"]
        if _lines(stay) or "," in stay or "from" in stay or not stay.strip():
            return [*path, "stay"], f"{stay!r} is not read as one city (no line break, comma or 'from')"
        return None
    for key in ("from", "to"):
        if _lines(value[key]) or "," in value[key] or not value[key].strip():
            return [*path, key], f"{value[key]!r} is not read as one city (blank, a line break or a comma)"
    if extract_from_to(f"from {value['from']} to {value['to']}") != (value["from"], value["to"]):
        return [*path, "to"], "the leg is not read back as from -> to (a city holds no ' to ' or 'from')"
    return None


def _transport(path: list[Any], value: dict, text: str) -> Failure | None:
    for key in ("from", "to", "duration", "distance"):
        if key in value and (_lines(value[key]) or (key != "distance" and "," in value[key])):
            return [*path, key], f"{value[key]!r} holds a line break or a comma, which ends the field"
    read = parse_transport(text)
    typed = {k: v for k, v in value.items() if k != "cost"}
    if read is None or {k: v for k, v in read.items() if k != "cost"} != typed:
        return path, "is not read back as typed (a field holds text of another field)"
    if modes_named(text) != [value["mode"]]:
        return path, f"names more than one mode ({', '.join(modes_named(text))})"
    if extract_from_to(text) != (value["from"], value["to"]):
        return [*path, "to"], "the leg is not read back as from -> to"
    return None


def conversion_failure(days: list[dict], upstream: list[dict[str, Any]]) -> Failure | None:
    """The first typed field (path, why) that its upstream string does not mean, or None."""
    for i, (day, out) in enumerate(zip(days, upstream, strict=True)):
        if day["days"] != i + 1:
            return [i, "days"], f"is {day['days']}, but this is day {i + 1} of the plan"
        if failure := _city([i, "city"], day["city"]):
            return failure
        if day["transportation"] is not None and (
                failure := _transport([i, "transportation"], day["transportation"], out["transportation"])):
            return failure
        for key in PLACES:
            if day[key] is not None and (failure := _place([i, key], day[key])):
                return failure
        attractions = day["attraction"]
        for k, place in enumerate(attractions):
            if failure := _attraction([i, "attraction", k], place):
                return failure
        if attractions and len(attraction_items(out["attraction"], False)) != len(attractions):
            return [i, "attraction"], "is not read back as the places typed"
    return None
