"""An independent answer to "can anyone do this plan by the database's own times?", for the timeline's tests.

It shares nothing with the checker but the bounds (windows, least times, airport slack, day-trip reach:
strict's default conventions, ``conventions.py``: they are the rule, not its implementation). It reads the
plan's strings with its own patterns, asks the store for the rows (flight times, distance-table durations),
and searches every order of each day's items one item at a time (a subset search, where the checker fills a
table over counts), with each move taken only when the next item, or the night, is in another city. A day
starts at 00:00, or when the day before was over if that is later, and a day whose transport has no timed row
starts afresh.
"""

from __future__ import annotations

import re
from typing import Any

from planshape.validators.travelplanner.checks.conventions import CONVENTIONS

# The rule's bounds, copied once (a test that plants a bug in the checker's own cannot reach these).
WINDOWS, MINUTES = dict(CONVENTIONS.bounds.windows), dict(CONVENTIONS.bounds.minutes)
BOARDING, LANDING = CONVENTIONS.bounds.boarding, CONVENTIONS.bounds.landing
DAY_TRIP_KM = CONVENTIONS.day_trip_km

FOREVER = 10 ** 9


def _city(text: str) -> str:
    return re.sub(r"\(.*\)\s*$", "", text).strip()


def _place_city(item: str) -> str:
    return _city(item.rsplit(",", 1)[-1])


def _hours(text: str) -> int | None:
    m = re.fullmatch(r"\s*(?:(\d+) hours?)?\s*(?:(\d+) mins?)?\s*", text or "")
    if not m or not any(m.groups()):
        return None
    return int(m[1] or 0) * 60 + int(m[2] or 0)


def _drive(store: Any, origin: str, destination: str) -> int | None:
    row = store.distance(origin, destination)
    if row is None or not row.duration or not row.distance or "day" in row.duration:
        return None
    return _hours(row.duration)


def _clock(text: str) -> int:
    h, m = text.split(":")
    return int(h) * 60 + int(m)


def day_items(unit: dict) -> list[tuple[str, str]]:
    """(kind, city) of the day's meals and sights."""
    out = [(meal, _place_city(unit[meal])) for meal in ("breakfast", "lunch", "dinner")
           if isinstance(unit.get(meal), str) and unit[meal].strip() not in ("", "-")]
    attraction = unit.get("attraction")
    if isinstance(attraction, str) and attraction.strip() not in ("", "-"):
        out += [("attraction", _place_city(a)) for a in attraction.split(";") if a.strip()]
    return out


def day_links(unit: dict, date: str, store: Any) -> tuple[str, str, dict, tuple | None] | None:
    """(start city, night city, ground links {(a, b): minutes}, flight (origin, destination, dep, arr)) of a day,
    or None when its transport has no timed row."""
    text = unit["current_city"]
    m = re.fullmatch(r"from (.+) to (.+)", text)
    if not m:
        home = _city(text)
        links: dict = {}
        for kind, city in day_items(unit):
            if kind == "attraction" and city != home and store.city_state.get(city) == store.city_state.get(home):
                row = store.distance(home, city)
                going = _drive(store, home, city)
                if going is None or float(row.distance.replace(",", "").replace(" km", "")) > DAY_TRIP_KM:
                    continue
                back = _drive(store, city, home)
                links = {(home, city): going, (city, home): going if back is None else back}
                break  # one day-trip city a day (Q20)
        return home, home, links, None
    origin, destination = _city(m[1]), _city(m[2])
    transport = unit.get("transportation", "")
    number = re.match(r"Flight Number: (\w+), ", transport)
    if number:
        row = store.flight_on_route(number[1], origin, destination, date)
        if row is None:
            return None
        dep, arr = _clock(row.dep_time), _clock(row.arr_time)
        return origin, destination, {}, (origin, destination, dep, arr if arr >= dep else arr + 1440)
    going = _drive(store, origin, destination)
    if going is None:
        return None
    back = _drive(store, destination, origin)
    links = {(origin, destination): going, (destination, origin): going if back is None else back}
    return origin, destination, links, None


def earliest_end(start: int, city: str, night: str, items: list[tuple[str, str]], links: dict,
                 flight: tuple | None) -> int | None:
    """The earliest time the day can be over with every item done, or None: orders grown item by item, keeping
    for each (items left, where, flown) only its earliest time (being earlier is never worse)."""
    reachable = {city, night, *(c for leg in links for c in leg), *(flight[:2] if flight else ())}
    items = [it for it in items if it[1] in reachable]  # others fail another rule (the city checks)

    def go(time: int, here: str, there: str, flown: bool) -> tuple[int, bool] | None:
        if here == there:
            return time, flown
        if (here, there) in links:
            return time + links[(here, there)], flown
        if flight and not flown and (here, there) == flight[:2] and time + BOARDING <= flight[2]:
            return flight[3] + LANDING, True
        return None

    kinds = sorted(set(items))  # items of one kind in one city are interchangeable: count them
    left = tuple(items.count(k) for k in kinds)
    frontier = {(left, city, False): start}
    for _ in items:  # one more item done per round
        grown: dict = {}
        for (remaining, here, flown), time in frontier.items():
            for k, (kind, there) in enumerate(kinds):
                if not remaining[k] or (moved := go(time, here, there, flown)) is None:
                    continue
                opens, closes = WINDOWS[kind]
                end = max(moved[0], opens) + MINUTES[kind]
                key = (remaining[:k] + (remaining[k] - 1,) + remaining[k + 1:], there, moved[1])
                if end <= closes and end < grown.get(key, FOREVER):
                    grown[key] = end
        frontier = grown
    ends = [finish[0] for (_, here, flown), time in frontier.items()
            if (finish := go(time, here, night, flown)) and (finish[1] or flight is None)]
    return min(ends) if ends else None


def first_infeasible_day(plan: list[dict], days: int, dates: list[str], store: Any) -> int | None:
    """The first day (1-based) no order fits, carrying each day's end into the next; None when all fit."""
    ended = 0
    for i, unit in enumerate(plan[:days]):
        links = day_links(unit, dates[i], store)
        if links is None:
            ended = 0
            continue
        city, night, ground, flight = links
        end = earliest_end(ended, city, night, day_items(unit), ground, flight)
        if end is None:
            return i + 1
        ended = max(end - 1440, 0)  # a day starts at 00:00 at the earliest (the night before is at its lodging)
    return None
