"""Strict Q19's clock: does one schedule fit every item a day names? (A solver: no plan text, no database.)

A day is a start time and city, the night's city, the items it names (meals and sights, each in a city,
with an opening window and a least time; a sight also where it is) and the moves that join its cities: a
flight (fixed departure and arrival, taken once) or a ground leg (a drive or taxi of fixed duration, at any
time, at most ``Day.legs`` times in all: as often as the plan states it, see ``trip_timeline``). Moving
from one sight to the next takes the time ``sight_moves`` gives their coordinates, across a meal too (a
restaurant has no place, but no way through it is shorter); a move between cities starts afresh. The day
fits when some order of its items, with moves between them, keeps every window and ends in the night's city.

Meals keep their order (their windows do not overlap), and the earliest time of each state decides:
waiting is always allowed and every constraint is a deadline, so being earlier is never worse. Sights
count as interchangeable where their order cannot matter (at most one in a city: small tables over counts);
otherwise the search tells them apart and keeps the last one seen (``route``). A day with more than
``EXACT_SIGHTS`` sights is judged by a bound instead (``beyond_bound``: never stricter than the exact search).
The bounds the database does not give (windows, least times, airport times) are strict's conventions
(``conventions.py``, docs/modes.md *Conventions*); a day carries the ones it is judged by.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from .conventions import CONVENTIONS, Bounds
from .sight_moves import Point, hop_table, tree_bound

EXACT_SIGHTS = 6  # sights of one day that the exact search takes (a gold day holds at most 4)
ANY_LEGS = 1 << 20  # no limit on a day's ground moves
NEVER = 1 << 40


class Item(NamedTuple):
    """A meal or a sight the day names: ``kind`` is a key of the windows, ``text`` as the plan writes it,
    ``at`` a sight's (latitude, longitude) from its database row (None: not known, as for every meal)."""

    kind: str
    text: str
    city: str
    at: Point | None = None

    def __str__(self) -> str:
        return f"the {self.kind} {self.text.strip()}"


class Move(NamedTuple):
    """A flight (``departs`` set: it leaves then, taken once) or a ground leg (any time)."""

    label: str  # "flight F3573659", "self-driving", "taxi", "a day trip"
    origin: str
    destination: str
    minutes: int
    departs: int | None = None


class Day(NamedTuple):
    """One day to schedule, free from ``start`` (minutes after its midnight, 00:00 at the earliest); ``since``
    says why then; ``legs``: how many ground moves (either way) the day may make in all; ``bounds``: the
    conventions it is judged by; ``free``: when the day before was over, in this day's clock (None: at
    ``start``). Before 00:00, only the wait at the airport before a flight taken straight from the day's start
    may begin then (the traveller went to the airport the night before); every item and ground move waits for
    ``start``."""

    number: int
    start: int
    since: str
    city: str
    night: str
    items: tuple[Item, ...]
    moves: tuple[Move, ...]
    legs: int = ANY_LEGS
    bounds: Bounds = CONVENTIONS.bounds
    free: int | None = None

    def airport(self) -> int:
        """When the traveller may be at the airport at the earliest, going there straight from the day's start
        (``start`` on a day without a flight)."""
        if self.free is None or self.free > self.start or all(m.departs is None for m in self.moves):
            return self.start
        return self.free


class Step(NamedTuple):
    start: int
    end: int
    what: str
    item: Item | None = None  # the meal or sight; None for a move


class Schedule(NamedTuple):
    """The earliest schedule found: its steps, and when the day is over (its last step, or free after landing)."""

    steps: tuple[Step, ...]
    end: int


def clock(minutes: int) -> str:
    """``HH:MM``, with the day it falls on when that is not this one."""
    day, rest = divmod(minutes, 1440)
    text = f"{rest // 60:02d}:{rest % 60:02d}"
    return text if day == 0 else f"{text} the next day" if day == 1 else f"{text} the day before" if day == -1 \
        else f"{text} (day {day:+d})"


def span(minutes: int) -> str:
    return f"{minutes // 60} h {minutes % 60:02d}" if minutes >= 60 else f"{minutes} min"


def end_of_day(day: Day) -> int | None:
    """When the day's earliest schedule is over, or None when no schedule fits (the check's fast path).

    A day whose cities hold at most one sight each is a small table over counts (one city, a flight day, a
    ground leg both ways); a day with a run of sights to route is searched state by state over which sights
    were seen (``routed``); each is keyed by the day's shape alone (start, meals, counts or places,
    durations), which most days share.
    """
    if too_many_sights(day.items, day.bounds) or beyond_bound(day) is not None:
        return None
    if routing(day.items):
        return routed(*shape(day))
    return counted_end(day)


def counted_end(day: Day) -> int | None:
    """``end_of_day`` with sights interchangeable in each city (exact when no city has two of them)."""
    moves, b = day.moves, day.bounds
    if not moves:
        return one_city(day.start, *_shape(day.items, day.city, b), b) if day.city == day.night else None
    if len(moves) == 1 and (departs := moves[0].departs) is not None:
        flight = moves[0]
        if (flight.origin, flight.destination) != (day.city, day.night):
            return None
        first = _shape(day.items, flight.origin, b)  # what the day does before the flight
        before = one_city(day.start, *first, b) if first[0] or first[1] else day.airport()
        if before is None or before > departs - b.boarding:
            return None
        return one_city(departs + flight.minutes + b.landing, *_shape(day.items, flight.destination, b), b)
    if len(moves) == 2 and moves[0].departs is None is moves[1].departs and \
            (moves[0].origin, moves[0].destination) == (moves[1].destination, moves[1].origin):
        here, there = moves[0].origin, moves[0].destination
        if day.city not in (here, there) or day.night not in (here, there):
            return None
        meals = tuple((it.kind, it.city == there) for it in day.items if it.kind != "attraction")
        n_b = sum(1 for it in day.items if it.kind == "attraction" and it.city == there)
        n_a = sum(1 for it in day.items if it.kind == "attraction") - n_b
        return two_cities(day.start, meals, n_a, n_b, moves[0].minutes, moves[1].minutes, day.city == there,
                          day.night == there, b, day.legs)
    schedule = solve(day, routed_sights=False)  # several day-trip cities (only with Q20 open)
    return None if schedule is None else schedule.end


def _shape(items: Sequence[Item], city: str, b: Bounds) -> tuple[tuple[str, ...], int]:
    """The meals (in window order) and the number of sights of ``items`` in ``city``."""
    meals = tuple(sorted((it.kind for it in items if it.city == city and it.kind != "attraction"),
                         key=lambda kind: b.windows[kind][0]))
    return meals, sum(1 for it in items if it.city == city and it.kind == "attraction")


def _sights_by_city(items: Sequence[Item]) -> dict[str, list[Item]]:
    by_city: dict[str, list[Item]] = {}
    for it in items:
        if it.kind == "attraction":
            by_city.setdefault(it.city, []).append(it)
    return by_city


def routing(items: Sequence[Item]) -> bool:
    """Whether the order of the sights can matter and is searched: some city holds two or more of them, and
    the day at most ``EXACT_SIGHTS`` (a day over that is bounded, ``beyond_bound``)."""
    counts: dict[str, int] = {}
    for it in items:
        if it.kind == "attraction":
            counts[it.city] = counts.get(it.city, 0) + 1
    return any(n >= 2 for n in counts.values()) and sum(counts.values()) <= EXACT_SIGHTS


def _points(sights: Sequence[Item]) -> tuple[Point, ...]:
    """The sights' places (a sight the database cannot place sits with the one before it: no hop is charged)."""
    out: list[Point] = []
    for it in sights:
        out.append(it.at if it.at is not None else (out[-1] if out else (0.0, 0.0)))
    return tuple(out)


def _table(sights: Sequence[Item]) -> tuple[tuple[int, ...], ...]:
    if any(it.at is None for it in sights):  # a place the database lacks: nothing is charged to or from it
        placed = [it.at for it in sights]
        full = hop_table(tuple(p if p is not None else (0.0, 0.0) for p in placed))
        return tuple(tuple(0 if placed[i] is None or placed[j] is None else full[i][j] for j in range(len(placed)))
                     for i in range(len(placed)))
    return hop_table(_points(sights))


def shape(day: Day) -> tuple:
    """``routed``'s arguments: the day without its texts (so a batch's days share the cache)."""
    b = day.bounds
    meals = tuple(sorted(((it.kind, it.city) for it in day.items if it.kind != "attraction"),
                         key=lambda meal: b.windows[meal[0]][0]))
    by_city = _sights_by_city(day.items)
    groups = tuple((city, _table(sights)) for city, sights in sorted(by_city.items()))
    moves = tuple((m.origin, m.destination, m.minutes, m.departs) for m in day.moves)
    return day.start, day.city, day.night, meals, groups, moves, min(day.legs, len(day.items) + 2), b, day.airport()


@lru_cache(maxsize=8192)
def routed(start: int, city: str, night: str, meals: tuple[tuple[str, str], ...],
           groups: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...],
           moves: tuple[tuple[str, str, int, int | None], ...], legs: int,
           b: Bounds = CONVENTIONS.bounds, airport: int | None = None) -> int | None:
    """The earliest end of a day whose sights are routed (``route``, keyed by the day's shape: a batch's days
    share it)."""
    found = route(start, city, night, meals, groups, moves, legs, b, airport=airport)
    return None if found is None else found[0]


Label = tuple[int, int, object]  # (time, ready, back-pointer): when free, and when the next sight could start


def route(start: int, city: str, night: str, meals: tuple[tuple[str, str], ...],
          groups: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...],
          moves: tuple[tuple[str, str, int, int | None], ...], legs: int, b: Bounds = CONVENTIONS.bounds,
          late: int = -1, airport: int | None = None) -> tuple[int, list[tuple[str, int, int, int, int]]] | None:
    """The earliest end of a day with routed sights, and its steps ``(what, index, start, end, way)`` (``what``:
    ``meal``, ``sight`` or ``move``; ``index``: the meal's, the sight's (numbered group by group) or the move's).

    Items one at a time, with moves between them (at most ``legs`` ground moves). Sights are told apart: the
    way from the last one seen to the next in its city is charged, across meals too (a restaurant has no place,
    but the way from one sight to the next through it is no shorter than the straight one): the next sight
    starts no sooner than the last one's end plus the way plus the meals eaten since, so the way fills the
    waits for a meal's opening and nothing else (``ready``). A move starts afresh (the distance table's
    durations run city to city). Each state keeps its labels no other is earlier in both ``time`` and
    ``ready``. ``late``: that item's window never closes (a meal's index, or a sight's plus the meals').
    ``airport``: when a flight taken straight from the start may be waited for at the earliest (``Day.airport``;
    None: ``start``)."""
    windows, least = b.windows, b.minutes
    opens, closes = windows["attraction"]
    where: list[tuple[str, int, tuple[tuple[int, ...], ...]]] = []  # each sight's (city, index in it, its table)
    for name, table in groups:
        where += [(name, k, table) for k in range(len(table))]
    flight = any(departs is not None for *_, departs in moves)
    n_meals, total = len(meals), len(meals) + len(where)
    first = (0, 0, city, False, 0, -1)  # (meals eaten, sights seen, where, flown, ground moves, last sight)
    labels: dict[tuple, list[Label]] = {first: [(start, start, None)]}
    layer = [first]
    for done in range(total + 1):
        layer = _route_moves(labels, layer, moves, legs, b, start if airport is None else airport)
        if done == total:
            break
        following: list[tuple] = []
        for key in layer:
            m, seen, here, flown, used, last = key
            for label in labels[key]:
                time, ready, _ = label
                if m < n_meals and meals[m][1] == here:
                    kind = meals[m][0]
                    meal_opens, meal_closes = windows[kind]
                    took = least[kind]
                    end = max(time, meal_opens) + took
                    if end <= meal_closes or m == late:
                        _label(labels, following, (m + 1, seen, here, flown, used, last),
                               (end, ready + took if last >= 0 else end, (key, label, "meal", m, end - took, end, 0)))
                for j, (there, k, table) in enumerate(where):
                    if there != here or seen >> j & 1:
                        continue
                    way = table[where[last][1]][k] if last >= 0 and where[last][0] == there else 0
                    begin = max(time, ready + way, opens)
                    end = begin + least["attraction"]
                    if end <= closes or j + n_meals == late:
                        _label(labels, following, (m, seen | 1 << j, here, flown, used, j),
                               (end, end, (key, label, "sight", j, begin, end, way)))
        layer = following
    finals = [(label[0], key, label) for key in layer if key[2] == night and (key[3] or not flight)
              for label in labels[key]]
    if not finals:
        return None
    end, key, label = min(finals, key=lambda f: f[0])
    steps: list[tuple[str, int, int, int, int]] = []
    back: Any = label[2]
    while back is not None:
        parent: Label = back[1]
        steps.append((str(back[2]), int(back[3]), int(back[4]), int(back[5]), int(back[6])))
        back = parent[2]
    return end, steps[::-1]


def _label(labels: dict, following: list, key: tuple, new: Label) -> bool:
    """Keep ``new`` at ``key`` unless a label there is no later in time and ready; drop those it beats."""
    old = labels.get(key)
    if old is None:
        labels[key] = [new]
        following.append(key)
        return True
    if any(t <= new[0] and r <= new[1] for t, r, _ in old):
        return False
    labels[key] = [lab for lab in old if not (new[0] <= lab[0] and new[1] <= lab[1])] + [new]
    return True


def _route_moves(labels: dict, layer: list, moves: tuple[tuple[str, str, int, int | None], ...], legs: int,
                 b: Bounds, airport: int) -> list:
    """``layer`` with every state its moves reach (a move forgets the last sight: the next city starts afresh;
    a flight from the day's start may be waited for from ``airport``)."""
    states, changed = list(layer), True
    while changed:
        changed = False
        for key in list(states):
            m, seen, here, flown, used, _ = key
            for label in list(labels[key]):
                time = label[0]
                for n, (origin, destination, minutes, departs) in enumerate(moves):
                    if origin != here:
                        continue
                    if departs is None:
                        if used >= legs:
                            continue
                        target, begin, end, free = (m, seen, destination, flown, used + 1, -1), time, time + minutes, \
                            time + minutes
                    elif not flown and (time if m or seen or used else airport) + b.boarding <= departs:
                        target, begin, end, free = (m, seen, destination, True, used, -1), departs, departs + minutes, \
                            departs + minutes + b.landing
                    else:
                        continue
                    if _label(labels, states, target, (free, free, (key, label, "move", n, begin, end, 0))):
                        changed = True
    return states


@lru_cache(maxsize=8192)
def two_cities(start: int, meals: tuple[tuple[str, bool], ...], n_a: int, n_b: int, there: int, back: int,
               start_b: bool, night_b: bool, b: Bounds = CONVENTIONS.bounds, legs: int = ANY_LEGS) -> int | None:
    """The earliest end of a day with a ground leg both ways (``there`` from a to b, ``back``), at most
    ``legs`` moves in all: a table over (meals eaten, sights seen in each city, moves made, in b or not),
    filled in order (a state's moves, then its items)."""
    windows, least = b.windows, b.minutes
    sight = least["attraction"]
    meals = tuple(sorted(meals, key=lambda meal: windows[meal[0]][0]))
    legs = min(legs, len(meals) + n_a + n_b + 2)  # no schedule moves more often than it has items, and back
    opens, closes = windows["attraction"]
    size_b = n_b + 1
    width = (legs + 1) * 2  # (moves made, in b?) for one count of sights
    layer = (n_a + 1) * size_b * width  # one count of meals eaten
    times = [NEVER] * (layer * (len(meals) + 1))
    times[int(start_b)] = start
    for m in range(len(meals) + 1):
        base = m * layer
        for seen in range(n_a + n_b + 1):
            for s_a in range(max(0, seen - n_b), min(n_a, seen) + 1):
                cell = base + (s_a * size_b + seen - s_a) * width
                for used in range(legs):  # the moves, in the order they are made
                    k = cell + used * 2
                    if times[k] + there < times[k + 3]:
                        times[k + 3] = times[k] + there
                    if times[k + 1] + back < times[k + 2]:
                        times[k + 2] = times[k + 1] + back
                for used in range(legs + 1):
                    k = cell + used * 2
                    t_a, t_b = times[k], times[k + 1]
                    if s_a < n_a and t_a < NEVER and (end := max(t_a, opens) + sight) <= closes:
                        j = k + size_b * width
                        times[j] = min(times[j], end)
                    if seen - s_a < n_b and t_b < NEVER and (end := max(t_b, opens) + sight) <= closes:
                        j = k + width + 1
                        times[j] = min(times[j], end)
                    if m < len(meals):
                        kind, in_b = meals[m]
                        meal_opens, meal_closes = windows[kind]
                        t = t_b if in_b else t_a
                        if t < NEVER and (end := max(t, meal_opens) + least[kind]) <= meal_closes:
                            j = k + layer + in_b
                            times[j] = min(times[j], end)
    last = len(meals) * layer + (n_a * size_b + n_b) * width + int(night_b)
    end = min(times[last + used * 2] for used in range(legs + 1))
    return None if end >= NEVER else end


MAX_SIGHTS = 40  # no day names more (a gold day names at most 4): the search stays small whatever the bounds


def too_many_sights(items: Sequence[Item], b: Bounds = CONVENTIONS.bounds) -> bool:
    """More sights than a day holds (the convention) or than the sights' window holds, wherever they are (so no
    search ever grows large)."""
    return too_many(sum(1 for it in items if it.kind == "attraction"), b)


def too_many(sights: int, b: Bounds = CONVENTIONS.bounds) -> bool:
    opens, closes = b.windows["attraction"]
    return sights > MAX_SIGHTS or sights > b.sights or sights * b.minutes["attraction"] > closes - opens


def beyond_bound(day: Day) -> str | None:
    """Why a day with more than ``EXACT_SIGHTS`` sights cannot fit those of one city (None: it may): from
    the day's start (or the sights' opening) to their close go their visits, every meal of the city that
    some of them must come before and some after (they fit neither all before its latest start nor all after
    its earliest end), and the least moving between them (``tree_bound``: the way through every sight, less
    an edge for each time a ground move takes the traveller away and back, which costs both drives). Never
    stricter than the exact search."""
    b = day.bounds
    sight = b.minutes["attraction"]
    by_city = _sights_by_city(day.items)
    if sum(map(len, by_city.values())) <= EXACT_SIGHTS:
        return None
    ground = [m.minutes for m in day.moves if m.departs is None]
    away = 2 * min(ground) if ground else 0  # the least a trip away and back takes
    for city, sights in by_city.items():
        if len(sights) < 2:
            continue
        n = len(sights)
        first, closes = _sight_span(day, city)
        meals_between = [it.kind for it in day.items if it.kind != "attraction" and it.city == city
                         and _between(it.kind, n, first, closes, b)]
        table = _table(sights)
        moving = min(tree_bound(table, k) + k * away for k in range(len(ground) // 2 + 1))
        if first + n * sight + sum(b.minutes[kind] for kind in meals_between) + moving > closes:
            meals = f", {len(meals_between)} meal{'s' if len(meals_between) > 1 else ''} between them" \
                if meals_between else ""
            return (f"its {n} attractions in {city} need {span(n * sight)} of visits{meals} and at least "
                    f"{span(moving)} to move between them (the shortest tree through their places), more than "
                    f"{clock(first)}-{clock(closes)} holds{_span_cut(day, city)}")
    return None


def _sight_span(day: Day, city: str) -> tuple[int, int]:
    """When ``city``'s sights can be seen at all: from the day's start (a flight's arrival city: from the landing
    and the time to leave the airport) to the sights' close (its departure city: to the time at the airport)."""
    b = day.bounds
    first, closes = max(day.start, b.windows["attraction"][0]), b.windows["attraction"][1]
    for move in day.moves:
        if move.departs is not None:
            if city == move.destination != move.origin:
                first = max(first, move.departs + move.minutes + b.landing)
            if city == move.origin != move.destination:
                closes = min(closes, move.departs - b.boarding)
    return first, closes


def _span_cut(day: Day, city: str) -> str:
    """The flight that bounds ``city``'s sights, for a reason: it leaves from it or lands in it."""
    b = day.bounds
    for move in day.moves:
        if move.departs is not None and city == move.origin != move.destination:
            return f" ({move.label} leaves {city} at {clock(move.departs)}, {b.boarding} min at the airport before)"
        if move.departs is not None and city == move.destination != move.origin:
            return (f" ({move.label} lands in {city} at {clock(move.departs + move.minutes)}, {b.landing} min to "
                    f"leave the airport)")
    return ""


def _between(kind: str, sights: int, first: int, closes: int, b: Bounds) -> bool:
    """Whether ``sights`` visits between ``first`` and ``closes`` cannot all come before a ``kind`` meal (by its
    latest start) nor all after it (from its earliest end): the meal then lies between two of them."""
    meal_opens, meal_closes = b.windows[kind]
    took, visit = b.minutes[kind], max(b.minutes["attraction"], 1)
    before = max(0, min(meal_closes - took, closes) - first) // visit
    after = max(0, closes - max(meal_opens + took, first)) // visit
    return sights > before and sights > after


@lru_cache(maxsize=8192)
def one_city(start: int, meals: tuple[str, ...], sights: int, b: Bounds = CONVENTIONS.bounds) -> int | None:
    """The earliest end of ``meals`` (in window order) and ``sights`` sights in one city, from ``start``."""
    windows, least = b.windows, b.minutes
    sight = least["attraction"]
    opens, closes = windows["attraction"]
    row = [start] + [NEVER] * sights  # row[s]: the earliest time with the meals so far and s sights seen
    last = closes - sight  # the latest a sight may start
    for m in range(len(meals) + 1):
        for s in range(sights):  # a sight after the s-th
            t = row[s]
            if t <= last:
                end = (t if t > opens else opens) + sight
                if end < row[s + 1]:
                    row[s + 1] = end
        if m == len(meals):
            break
        meal_opens, meal_closes = windows[meals[m]]
        took = least[meals[m]]
        latest = meal_closes - took
        for s in range(sights + 1):  # then the next meal
            t = row[s]
            row[s] = ((t if t > meal_opens else meal_opens) + took) if t <= latest else NEVER
    end = row[sights]
    return end if end < NEVER else None


def solve(day: Day, items: Sequence[Item] | None = None, open_last: bool = False, routed_sights: bool = True,
          legs: int | None = None) -> Schedule | None:
    """The earliest schedule that fits ``items`` (default: all the day's) and ends in the night's city, with
    its steps; ``open_last``: the last item's window never closes (to find when it could start at the
    earliest); ``legs``: another limit on the ground moves than the day's. Sights are routed (``route``: told
    apart, with the way between them) where ``routing`` says their order can matter, else counted."""
    b = day.bounds
    items = day.items if items is None else tuple(items)
    late = items[-1] if open_last and items else None
    limit = min(day.legs if legs is None else legs, len(items) + 2)  # no schedule moves more often than that
    meals = sorted((it for it in items if it.kind != "attraction"), key=lambda it: b.windows[it.kind][0])
    by_city = _sights_by_city(items)
    cities = sorted(by_city)
    sights = [by_city[c] for c in cities]
    if too_many_sights(items, b) or beyond_bound(day._replace(items=items)) is not None:
        return None
    if routed_sights and routing(items):
        return _routed_schedule(day, meals, [it for group in sights for it in group], sights, limit, late)
    flight = next((m for m in day.moves if m.departs is not None), None)
    ground = [m for m in day.moves if m.departs is None]
    total = len(items)
    # state -> (time, previous state, step); a state is (meals eaten, sights seen in each city, city, flown, moves)
    first = (0, (0,) * len(cities), day.city, False, 0)
    best: dict[tuple, tuple[int, tuple | None, tuple | None]] = {first: (day.start, None, None)}
    layer = [first]
    for done in range(total + 1):
        layer = _moved(best, layer, ground, flight, limit, b, day.airport())
        if done == total:
            break
        following: list[tuple] = []
        for state in layer:
            meal, seen, city, flown, used = state
            if meal < len(meals) and meals[meal].city == city:
                _reach(best, following, state, (meal + 1, seen, city, flown, used), meals[meal], late, b)
            for k, there in enumerate(cities):
                if there == city and seen[k] < len(sights[k]):
                    after = (*seen[:k], seen[k] + 1, *seen[k + 1:])
                    _reach(best, following, state, (meal, after, city, flown, used), sights[k][seen[k]], late, b)
        layer = following
    finals = [s for s in layer if s[2] == day.night and (s[3] or flight is None)]
    if not finals:
        return None
    fastest: tuple = min(finals, key=lambda s: best[s][0])
    node: tuple | None = fastest
    end, steps = best[fastest][0], []
    while node is not None:
        _, node, step = best[node]
        if step is not None:
            steps.append(_named(*step))
    return Schedule(tuple(reversed(steps)), end)


def _routed_schedule(day: Day, meals: list[Item], flat: list[Item], groups: list[list[Item]], limit: int,
                     late: Item | None) -> Schedule | None:
    """``route``'s schedule of the day, with its items and moves named."""
    order = [*meals, *flat]
    late_index = next((k for k, it in enumerate(order) if it is late), -1)
    found = route(day.start, day.city, day.night, tuple((it.kind, it.city) for it in meals),
                  tuple((group[0].city, _table(group)) for group in groups),
                  tuple((m.origin, m.destination, m.minutes, m.departs) for m in day.moves), limit, day.bounds,
                  late_index, day.airport())
    if found is None:
        return None
    end, steps = found
    named = []
    for what, index, begin, finish, way in steps:
        thing = meals[index] if what == "meal" else flat[index] if what == "sight" else day.moves[index]
        named.append(_named(begin, finish, thing, way))
    return Schedule(tuple(named), end)


def _named(start: int, end: int, what: Item | Move, hop: int) -> Step:
    """A step of a schedule found, with its text (made only for the steps kept)."""
    if isinstance(what, Move):
        return Step(start, end, f"{what.label} from {what.origin} to {what.destination}")
    return Step(start, end, f"{what}, {hop} min from the sight before" if hop else str(what), what)


def _reach(best: dict, following: list, state: tuple, target: tuple, item: Item, late: Item | None,
           b: Bounds) -> None:
    opens, closes = b.windows[item.kind]
    start = max(best[state][0], opens)
    end = start + b.minutes[item.kind]
    if end > closes and item is not late:
        return
    if target not in best:
        following.append(target)
    elif best[target][0] <= end:
        return
    best[target] = (end, state, (start, end, item, 0))


def _moved(best: dict, layer: list, ground: list[Move], flight: Move | None, limit: int, b: Bounds,
           airport: int) -> list:
    """``layer`` with every state its moves reach sooner (a few cities: a few rounds; a flight from the day's
    start may be waited for from ``airport``)."""
    changed, states = True, list(layer)
    while changed:
        changed = False
        for state in list(states):
            meal, seen, city, flown, used = state
            time = best[state][0]
            options = [(m, time, time + m.minutes, time + m.minutes, False, used + 1) for m in ground
                       if m.origin == city and used < limit]
            departs = None if flight is None else flight.departs  # a flight's is always set
            at_start = not meal and not any(seen) and not used  # nothing done yet: straight to the airport
            if flight is not None and departs is not None and not flown and flight.origin == city \
                    and (airport if at_start else time) + b.boarding <= departs:
                lands = departs + flight.minutes
                options.append((flight, departs, lands, lands + b.landing, True, used))
            for move, leaves, lands, free, flies, moved in options:
                target = (meal, seen, move.destination, flown or flies, moved)
                if target in best and best[target][0] <= free:
                    continue
                if target not in best:
                    states.append(target)
                best[target] = (free, state, (leaves, lands, move, 0))
                changed = True
    return states


def legs_needed(day: Day) -> int | None:
    """How many ground moves the day's items need at the least when the day's own limit is lifted (None: no
    number of them fits the day)."""
    most = len(day.items) + 2
    if end_of_day(day._replace(legs=most)) is None:
        return None
    return next(n for n in range(day.legs + 1, most + 1) if end_of_day(day._replace(legs=n)) is not None)


def conflict(day: Day) -> str | None:
    """Why no schedule fits the day (None when one does): the first item, in the plan's order, that cannot
    join those before it, and when it could start at the earliest, or the move that leaves it no time; or
    the ground moves or the moving between sights that the plan does not leave time or leave to."""
    b = day.bounds
    sights = sum(1 for it in day.items if it.kind == "attraction")
    if sights > b.sights:  # a fact the day fails too comes first: it says more than the convention
        beyond = Bounds(b.windows, b.minutes, b.boarding, b.landing)
        return conflict(day._replace(bounds=beyond)) or (
            f"its {sights} attractions are more than a day holds (at most {b.sights}, the sights-a-day convention)")
    if too_many(sights, b):
        return f"{sights} attractions of {b.minutes['attraction']} min each do not fit in {_window('attraction', b)}"
    if (bound := beyond_bound(day)) is not None:
        return bound
    if end_of_day(day) is not None:
        return None
    if day.legs < ANY_LEGS and (needed := legs_needed(day)) is not None:
        return _too_many_legs(day, needed)
    if end_of_day(day._replace(items=())) is None:
        return f"it cannot end in {day.night}: {_moves(day, None)}"
    fitted: list[Item] = []
    for item in day.items:
        if end_of_day(day._replace(items=(*fitted, item))) is None:
            return _why(day, fitted, item)
        fitted.append(item)
    return "no order fits its items"  # not reached: the whole day failed above


def _too_many_legs(day: Day, needed: int) -> str:
    """The reason of a day whose items need its ground leg more often than the plan states it."""
    schedule = solve(day, legs=needed)
    ground = [m for m in day.moves if m.departs is None]
    steps = schedule.steps if schedule is not None else ()
    driven = [s for s in steps if s.item is None and not s.what.startswith("flight")]
    wheel = sum(s.end - s.start for s in driven)
    label, a, b = ground[0].label, ground[0].origin, ground[0].destination
    order = "; ".join(f"{s.what} ({clock(s.start)}-{clock(s.end)})" for s in steps)
    if label == "a day trip":
        stated = "a day trip goes there and back once"
    else:
        stated = f"the plan states it {'once' if day.legs == 1 else f'{day.legs} times'}"
    return (f"its items need {label} between {a} and {b} {needed} times ({span(wheel)} on the road), but "
            f"{stated}: {needed - day.legs} more are neither stated nor paid: {order}")


def _why(day: Day, fitted: list[Item], item: Item) -> str:
    """Why ``item`` cannot join ``fitted``: when it could start at the earliest and after what, or the move
    that leaves it no time; then the items before it."""
    b = day.bounds
    what = f"{item} ({_window(item.kind, b)}, {b.minutes[item.kind]} min) cannot fit"
    before = f"; before it: {', '.join(map(str, fitted))}" if fitted else ""
    relaxed = solve(day, (*fitted, item), open_last=True)
    if relaxed is None:  # not even late: every way to its city leaves before it opens
        return f"{what}: {_moves(day, item)}{before}"
    k = next(k for k, s in enumerate(relaxed.steps) if s.item is item)
    if not k:
        return f"{what}: the day starts at {clock(day.start)}, when {day.since}{before}"
    return (f"{what}: it could start at {clock(relaxed.steps[k].start)} at the earliest, after "
            f"{_step(relaxed.steps[k - 1], b)}{before}")


def _step(step: Step, b: Bounds) -> str:
    if step.item is None and step.what.startswith("flight"):
        return (f"{step.what}, which leaves at {clock(step.start)} and lands at {clock(step.end)} ({b.landing} min "
                f"to leave the airport)")
    return f"{step.what} ({clock(step.start)}-{clock(step.end)})"


def _window(kind: str, b: Bounds) -> str:
    opens, closes = b.windows[kind]
    return f"{clock(opens)}-{clock(closes)}"


def _moves(day: Day, item: Item | None) -> str:
    """The day's start (when it is later than ``item`` opens) and its moves, with their times."""
    parts, b = [], day.bounds
    if item is None and day.airport() < day.start:
        parts.append(f"the traveller is free in {day.city} from {clock(day.airport())}, when {day.since}")
    elif item is None or day.start > b.windows[item.kind][0]:
        parts.append(f"the day starts at {clock(day.start)} in {day.city}, when {day.since}")
    for move in day.moves:
        if move.departs is not None:
            parts.append(f"{move.label} leaves {move.origin} at {clock(move.departs)} ({b.boarding} min at the "
                         f"airport before) and lands in {move.destination} at {clock(move.departs + move.minutes)} "
                         f"({b.landing} min to leave the airport)")
        elif item is None or move.origin != day.night or move.destination == item.city:
            parts.append(f"{move.label} from {move.origin} to {move.destination} takes {span(move.minutes)}")
    return "; ".join(parts)
