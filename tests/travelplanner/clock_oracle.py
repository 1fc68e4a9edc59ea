"""An independent answer to "can anyone do this plan by the database's own times?", for the timeline's tests.

It shares nothing with the checker but the rule's numbers (windows, least times, airport slack, day-trip reach:
strict's default conventions, ``conventions.py``; the moving convention's speeds, how often a leg may be driven,
how many sights are searched exactly: they are the rule, not its implementation). It reads the plan's strings
with its own patterns, asks the store for the rows (flight times, distance-table durations, the sights'
coordinates), and searches every order of each day's items one item at a time, with each move taken only when
the next item, or the night, is in another city, and the way from one sight to the next of its city charged (its
own great-circle distance), across meals too: the next sight starts no sooner than the last one's end, the way
and the meals since. A day with more sights than the exact search takes counts them interchangeable instead (no
way between them) and applies the rule's bound (its own shortest tree through each city's). A day's clock runs
from when the day before was over, before midnight too: no item and no ground leg starts before 00:00, but the
wait at the airport for a flight taken first may (a red-eye boarded the evening before). The first day, and a
day after one whose transport has no timed row, has nothing before it.
"""

from __future__ import annotations

import math
import re
from typing import Any

from planshape.validators.travelplanner.checks import sight_moves, timeline, trip_timeline
from planshape.validators.travelplanner.checks.conventions import CONVENTIONS

# The rule's numbers, copied once (a test that plants a bug in the checker's own cannot reach these).
WINDOWS, MINUTES = dict(CONVENTIONS.bounds.windows), dict(CONVENTIONS.bounds.minutes)
BOARDING, LANDING = CONVENTIONS.bounds.boarding, CONVENTIONS.bounds.landing
DAY_TRIP_KM = CONVENTIONS.day_trip_km
SIGHTS_A_DAY = CONVENTIONS.sights_per_day
EXACT = timeline.EXACT_SIGHTS
WALK_KMH, DRIVE_START, DRIVE_PER_KM = (sight_moves.WALK_KMH, sight_moves.DRIVE_START_MINUTES,
                                       sight_moves.DRIVE_MINUTES_PER_KM)
SHUTTLE = trip_timeline.SHUTTLE_MINUTES

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


def _where(store: Any, item: str) -> tuple[float, float] | None:
    name, city = item.rsplit(",", 1)
    rows = store.places("attractions", name.strip(), _city(city), exact=True)
    return (float(rows[0].latitude), float(rows[0].longitude)) if rows else None


def hop(a: tuple[float, float] | None, b: tuple[float, float] | None) -> int:
    """Minutes from one sight to the next: the faster of the walk and the drive over the great circle."""
    if a is None or b is None:
        return 0
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dl = math.radians(b[1] - a[1])
    km = 6371.0088 * math.acos(max(-1.0, min(1.0, math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2)
                                             * math.cos(dl))))
    return round(min(km / WALK_KMH * 60, DRIVE_START + DRIVE_PER_KM * km) + 1e-9)


def day_items(unit: dict, store: Any) -> list[tuple[str, str, Any]]:
    """(kind, city, place) of the day's meals and sights (a sight's coordinates; None for a meal)."""
    out: list[tuple[str, str, Any]] = [(meal, _place_city(unit[meal]), None) for meal in ("breakfast", "lunch",
                                                                                         "dinner")
                                       if isinstance(unit.get(meal), str) and unit[meal].strip() not in ("", "-")]
    attraction = unit.get("attraction")
    if isinstance(attraction, str) and attraction.strip() not in ("", "-"):
        out += [("attraction", _place_city(a), _where(store, a)) for a in attraction.split(";") if a.strip()]
    return out


def day_links(unit: dict, date: str, store: Any) -> tuple[str, str, dict, tuple | None, int] | None:
    """(start city, night city, ground links {(a, b): minutes}, flight (origin, destination, dep, arr), the most
    ground moves) of a day, or None when its transport has no timed row."""
    text = unit["current_city"]
    m = re.fullmatch(r"from (.+) to (.+)", text)
    if not m:
        home = _city(text)
        links: dict = {}
        for kind, city, _ in day_items(unit, store):
            if kind == "attraction" and city != home and store.city_state.get(city) == store.city_state.get(home):
                row = store.distance(home, city)
                going = _drive(store, home, city)
                if going is None or float(row.distance.replace(",", "").replace(" km", "")) > DAY_TRIP_KM:
                    continue
                back = _drive(store, city, home)
                links = {(home, city): going, (city, home): going if back is None else back}
                break  # one day-trip city a day (Q20)
        return home, home, links, None, 2  # a day trip: there and back once
    origin, destination = _city(m[1]), _city(m[2])
    transport = unit.get("transportation", "")
    number = re.match(r"Flight Number: (\w+), ", transport)
    if number:
        row = store.flight_on_route(number[1], origin, destination, date)
        if row is None:
            return None
        dep, arr = _clock(row.dep_time), _clock(row.arr_time)
        return origin, destination, {}, (origin, destination, dep, arr if arr >= dep else arr + 1440), 0
    going = _drive(store, origin, destination)
    if going is None:
        return None
    back = _drive(store, destination, origin)
    links = {(origin, destination): going, (destination, origin): going if back is None else back}
    legs = 3 if transport.startswith("Self-driving") and going <= SHUTTLE else 1  # stated once; a short drive
    return origin, destination, links, None, legs                               # there and back once more


def earliest_end(start: int, city: str, night: str, items: list[tuple[str, str, Any]], links: dict,
                 flight: tuple | None, legs: int = 10 ** 6, exact: int = EXACT) -> int | None:
    """The earliest time the day can be over with every item done, or None: orders grown item by item, keeping
    for each (items left, where, flown, moves made, the sight just seen) only its earliest time. ``exact``: the
    most sights searched one by one (the rule's; more, to check the rule's bound against the whole search)."""
    reachable = {city, night, *(c for leg in links for c in leg), *(flight[:2] if flight else ())}
    items = [it for it in items if it[1] in reachable]  # others fail another rule (the city checks)
    per_city: dict[str, int] = {}
    for kind, there, _ in items:
        if kind == "attraction":
            per_city[there] = per_city.get(there, 0) + 1
    sights = sum(per_city.values())
    if sights > SIGHTS_A_DAY:
        return None
    if sights > exact:
        if not _within_bound(start, items, [*links.values(), *([None] if flight else [])], flight):
            return None
        items = [(kind, there, None) for kind, there, _ in items]  # interchangeable, no way between them

    def go(time: int, here: str, there: str, flown: bool, moved: int) -> tuple[int, bool, int] | None:
        if here == there:
            return time, flown, moved
        if (here, there) in links and moved < legs:
            return max(time, 0) + links[(here, there)], flown, moved + 1  # no drive before 00:00
        if flight and not flown and (here, there) == flight[:2] and time + BOARDING <= flight[2]:  # before it too
            return flight[3] + LANDING, True, moved
        return None

    # (items left, where, flown, moves made, the last sight since the last move) -> the labels (time, ready) no
    # other beats in both: ``ready`` is the last sight's end plus the meals eaten since, when the next sight of
    # its city could start but for the way between them (the way fills waits for a meal's opening, no more)
    frontier: dict = {(frozenset(range(len(items))), city, False, 0, None): [(start, start)]}
    for _ in items:  # one more item done per round
        grown: dict = {}
        for (left, here, flown, moved, last), labels in frontier.items():
            for time, ready in labels:
                tried = set()
                for k in left:
                    kind, there, place = items[k]
                    if (kind, there, place) in tried and place is None:
                        continue  # interchangeable with one tried
                    tried.add((kind, there, place))
                    step = go(time, here, there, flown, moved)
                    if step is None:
                        continue
                    at, now_flown, now_moved = step
                    opens, closes = WINDOWS[kind]
                    kept = last if there == here else None  # a move forgets the last sight
                    if kind == "attraction":
                        way = hop(items[kept][2], place) if kept is not None else 0
                        end = max(at, (ready + way) if kept is not None else at, opens, 0) + MINUTES[kind]
                        label, after = (end, end), k
                    else:
                        end = max(at, opens, 0) + MINUTES[kind]  # no item before 00:00
                        label, after = (end, ready + MINUTES[kind] if kept is not None else end), kept
                    if end <= closes:
                        key = (left - {k}, there, now_flown, now_moved, after)
                        old = grown.get(key, [])
                        if not any(t <= label[0] and r <= label[1] for t, r in old):
                            grown[key] = [(t, r) for t, r in old if not (label[0] <= t and label[1] <= r)] + [label]
        frontier = grown
    ends = [finish[0] for (_, here, flown, moved, _), labels in frontier.items() for time, _ in labels
            if (finish := go(time, here, night, flown, moved)) and (finish[1] or flight is None)]
    return min(ends) if ends else None


def _within_bound(start: int, items: list, moves: list[int | None], flight: tuple | None = None) -> bool:
    """The rule for a day with more sights than the exact search takes: in each city, their visits, every meal
    of that city that must fall between two of them (they fit neither all before its latest start nor all after
    its earliest end), and the shortest tree through them, less one edge for each trip away and back by a ground
    move (at both drives' time), fit from the day's start (a flight's landing, in its arrival city) to the sights'
    close (the time at the airport, in its departure city)."""
    opens, window_closes = WINDOWS["attraction"]
    sight = MINUTES["attraction"]
    per = max(sight, 1)
    ground = [m for m in moves if m is not None]
    away = 2 * min(ground) if ground else 0
    cities: dict[str, list] = {}
    for kind, there, place in items:
        if kind == "attraction":
            cities.setdefault(there, []).append(place)
    for city, places in cities.items():
        if len(places) < 2:
            continue
        n = len(places)
        first, closes = max(start, opens), window_closes
        if flight and city == flight[1] != flight[0]:
            first = max(first, flight[3] + LANDING)  # after the landing
        if flight and city == flight[0] != flight[1]:
            closes = min(closes, flight[2] - BOARDING)  # before the departure
        eating = 0
        for kind, there, _ in items:
            if kind == "attraction" or there != city:
                continue
            latest = min(WINDOWS[kind][1] - MINUTES[kind], closes)
            earliest_end = max(WINDOWS[kind][0] + MINUTES[kind], first)
            all_before = n <= (latest - first) // per if latest > first else False
            all_after = n <= (closes - earliest_end) // per if closes > earliest_end else False
            if not all_before and not all_after:
                eating += MINUTES[kind]
        tree, inside_tree = [], {0}  # Prim's edges
        while len(inside_tree) < n:
            weight, k = min((hop(places[i], places[j]), j) for i in inside_tree for j in range(n)
                            if j not in inside_tree)
            tree.append(weight)
            inside_tree.add(k)
        tree.sort(reverse=True)
        moving = min(sum(tree[k:]) + k * away for k in range(len(ground) // 2 + 1))
        if first + n * sight + eating + moving > closes:
            return False
    return True


def first_infeasible_day(plan: list[dict], days: int, dates: list[str], store: Any, any_legs: bool = False
                         ) -> int | None:
    """The first day (1-based) no order fits, carrying each day's end into the next; None when all fit.
    ``any_legs``: a ground leg may be travelled any number of times."""
    ended = -FOREVER  # the night before the trip holds nothing
    for i, unit in enumerate(plan[:days]):
        links = day_links(unit, dates[i], store)
        if links is None:
            ended = -FOREVER
            continue
        city, night, ground, flight, legs = links
        end = earliest_end(ended, city, night, day_items(unit, store), ground, flight, 10 ** 6 if any_legs else legs)
        if end is None:
            return i + 1
        ended = end - 1440  # the next day's clock; its items wait for 00:00 (the night is at the lodging)
    return None
