"""Strict Q19's clock: does one schedule fit every item a day names? (A solver: no plan text, no database.)

A day is a start time and city, the night's city, the items it names (meals and sights, each in a city,
with an opening window and a least time) and the moves that join its cities: a flight (fixed departure
and arrival, taken once) or a ground leg (a drive or taxi of fixed duration, at any time, as often as
needed: two train gold plans eat in the departure city after eating in the arrival city on a short
drive). The day fits when some order of its items, with moves between them, keeps every window and ends
in the night's city.

Meals keep their order (their windows do not overlap) and a city's sights are interchangeable, so the
state is (meals eaten, sights seen in each city, where, flown or not), and its earliest time decides:
waiting is always allowed and every constraint is a deadline, so being earlier is never worse. A day in
one city, or a flight day (the departure city's items before the flight, the arrival city's after), is a
small table over (meals eaten, sights seen); a day with ground legs is searched state by state.
The bounds the database does not give (windows, least times, airport times) are strict's conventions
(``conventions.py``, docs/modes.md *Conventions*); a day carries the ones it is judged by.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from .conventions import CONVENTIONS, Bounds

NEVER = 1 << 40


class Item(NamedTuple):
    """A meal or a sight the day names: ``kind`` is a key of ``WINDOWS``, ``text`` as the plan writes it."""

    kind: str
    text: str
    city: str

    def __str__(self) -> str:
        return f"the {self.kind} {self.text.strip()}"


class Move(NamedTuple):
    """A flight (``departs`` set: it leaves then, taken once) or a ground leg (any time, as often as needed)."""

    label: str  # "flight F3573659", "self-driving", "taxi", "a day trip"
    origin: str
    destination: str
    minutes: int
    departs: int | None = None


class Day(NamedTuple):
    """One day to schedule, free from ``start`` (minutes after its midnight); ``since`` says why then;
    ``bounds``: the conventions it is judged by."""

    number: int
    start: int
    since: str
    city: str
    night: str
    items: tuple[Item, ...]
    moves: tuple[Move, ...]
    bounds: Bounds = CONVENTIONS.bounds


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

    A day in one city and a flight day are two small tables over (meals eaten, sights seen), a day with a
    ground leg both ways one over (meals eaten, sights seen in each city, where); each is keyed by the
    day's shape alone (start, meals, counts, durations: small integers), which most days share.
    """
    b = day.bounds
    if too_many_sights(day.items, b):
        return None
    moves = day.moves
    if not moves:
        return one_city(day.start, *_shape(day.items, day.city, b), b) if day.city == day.night else None
    if len(moves) == 1 and (departs := moves[0].departs) is not None:
        flight = moves[0]
        if (flight.origin, flight.destination) != (day.city, day.night):
            return None
        before = one_city(day.start, *_shape(day.items, flight.origin, b), b)
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
                           day.night == there, b)
    schedule = solve(day)  # several day-trip cities (only with Q20 open)
    return None if schedule is None else schedule.end


def _shape(items: Sequence[Item], city: str, b: Bounds) -> tuple[tuple[str, ...], int]:
    """The meals (in window order) and the number of sights of ``items`` in ``city``."""
    meals = tuple(sorted((it.kind for it in items if it.city == city and it.kind != "attraction"),
                         key=lambda kind: b.windows[kind][0]))
    return meals, sum(1 for it in items if it.city == city and it.kind == "attraction")


@lru_cache(maxsize=8192)
def two_cities(start: int, meals: tuple[tuple[str, bool], ...], n_a: int, n_b: int, there: int, back: int,
                start_b: bool, night_b: bool, b: Bounds = CONVENTIONS.bounds) -> int | None:
    """The earliest end of a day with a ground leg both ways (``there`` from a to b, ``back``): a table over
    (meals eaten, sights seen in each city, in b or not), filled in order (a state's moves, then its items)."""
    windows, least = b.windows, b.minutes
    sight = least["attraction"]
    meals = tuple(sorted(meals, key=lambda meal: windows[meal[0]][0]))
    opens, closes = windows["attraction"]
    size_b = n_b + 1
    layer = (n_a + 1) * size_b * 2  # (sights in a, sights in b, in b?) for one count of meals eaten
    times = [NEVER] * (layer * (len(meals) + 1))
    times[int(start_b)] = start
    for m in range(len(meals) + 1):
        base = m * layer
        for seen in range(n_a + n_b + 1):
            for s_a in range(max(0, seen - n_b), min(n_a, seen) + 1):
                k = base + (s_a * size_b + seen - s_a) * 2
                t_a, t_b = times[k], times[k + 1]
                if t_a + there < t_b:
                    t_b = times[k + 1] = t_a + there
                if t_b + back < t_a:
                    t_a = times[k] = t_b + back
                if s_a < n_a and t_a < NEVER and (end := max(t_a, opens) + sight) <= closes:
                    times[k + 2 * size_b] = min(times[k + 2 * size_b], end)
                if seen - s_a < n_b and t_b < NEVER and (end := max(t_b, opens) + sight) <= closes:
                    times[k + 3] = min(times[k + 3], end)
                if m < len(meals):
                    kind, in_b = meals[m]
                    meal_opens, meal_closes = windows[kind]
                    t = t_b if in_b else t_a
                    if t < NEVER and (end := max(t, meal_opens) + least[kind]) <= meal_closes:
                        j = k + layer + in_b
                        times[j] = min(times[j], end)
    end = times[len(meals) * layer + (n_a * size_b + n_b) * 2 + int(night_b)]
    return None if end >= NEVER else end


MAX_SIGHTS = 40  # no day names more (a gold day names at most 4): the search stays small whatever the bounds


def too_many_sights(items: Sequence[Item], b: Bounds = CONVENTIONS.bounds) -> bool:
    """More sights than the sights' window holds, wherever they are (so no search ever grows large)."""
    return too_many(sum(1 for it in items if it.kind == "attraction"), b)


def too_many(sights: int, b: Bounds = CONVENTIONS.bounds) -> bool:
    opens, closes = b.windows["attraction"]
    return sights > MAX_SIGHTS or sights * b.minutes["attraction"] > closes - opens


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


def solve(day: Day, items: Sequence[Item] | None = None, open_last: bool = False) -> Schedule | None:
    """The earliest schedule that fits ``items`` (default: all the day's) and ends in the night's city;
    ``open_last``: the last item's window never closes (to find when it could start at the earliest)."""
    b = day.bounds
    items = day.items if items is None else tuple(items)
    late = items[-1] if open_last and items else None
    meals = sorted((it for it in items if it.kind != "attraction"), key=lambda it: b.windows[it.kind][0])
    cities = sorted({it.city for it in items if it.kind == "attraction"})
    sights = {c: [it for it in items if it.kind == "attraction" and it.city == c] for c in cities}
    if too_many_sights(items, b):
        return None
    flight = next((m for m in day.moves if m.departs is not None), None)
    ground = [m for m in day.moves if m.departs is None]
    total = len(items)
    # state -> (time, previous state, step); a state is (meals eaten, sights seen per city, city, flown)
    first = (0, (0,) * len(cities), day.city, False)
    best: dict[tuple, tuple[int, tuple | None, Step | None]] = {first: (day.start, None, None)}
    layer = [first]
    for done in range(total + 1):
        layer = _moved(best, layer, ground, flight, b)
        if done == total:
            break
        following: list[tuple] = []
        for state in layer:
            meal, seen, city, flown = state
            if meal < len(meals) and meals[meal].city == city:
                _reach(best, following, state, (meal + 1, seen, city, flown), meals[meal], late, b)
            for k, there in enumerate(cities):
                if there == city and seen[k] < len(sights[there]):
                    after = (*seen[:k], seen[k] + 1, *seen[k + 1:])
                    _reach(best, following, state, (meal, after, city, flown), sights[there][seen[k]], late, b)
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
            steps.append(step)
    return Schedule(tuple(reversed(steps)), end)


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
    best[target] = (end, state, Step(start, end, str(item), item))


def _moved(best: dict, layer: list, ground: list[Move], flight: Move | None, b: Bounds) -> list:
    """``layer`` with every state its moves reach sooner (a few cities: a few rounds)."""
    changed, states = True, list(layer)
    while changed:
        changed = False
        for state in list(states):
            meal, seen, city, flown = state
            time = best[state][0]
            options = [(m, time, time + m.minutes, time + m.minutes, False) for m in ground if m.origin == city]
            departs = None if flight is None else flight.departs  # a flight's is always set
            if flight is not None and departs is not None and not flown and flight.origin == city \
                    and time + b.boarding <= departs:
                lands = departs + flight.minutes
                options.append((flight, departs, lands, lands + b.landing, True))
            for move, leaves, lands, free, flies in options:
                target = (meal, seen, move.destination, flown or flies)
                if target in best and best[target][0] <= free:
                    continue
                if target not in best:
                    states.append(target)
                best[target] = (free, state, Step(leaves, lands, f"{move.label} from {move.origin} to "
                                                                 f"{move.destination}"))
                changed = True
    return states


def conflict(day: Day) -> str | None:
    """Why no schedule fits the day (None when one does): the first item, in the plan's order, that cannot
    join those before it, and when it could start at the earliest, or the move that leaves it no time."""
    b = day.bounds
    if too_many_sights(day.items, b):
        sights = sum(1 for it in day.items if it.kind == "attraction")
        return f"{sights} attractions of {b.minutes['attraction']} min each do not fit in {_window('attraction', b)}"
    if solve(day) is not None:
        return None
    if solve(day, ()) is None:
        return f"it cannot end in {day.night}: {_moves(day, None)}"
    fitted: list[Item] = []
    for item in day.items:
        if solve(day, (*fitted, item)) is None:
            return _why(day, fitted, item)
        fitted.append(item)
    return "no order fits its items"  # not reached: the whole day failed above


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
    if item is None or day.start > b.windows[item.kind][0]:
        parts.append(f"the day starts at {clock(day.start)} in {day.city}, when {day.since}")
    for move in day.moves:
        if move.departs is not None:
            parts.append(f"{move.label} leaves {move.origin} at {clock(move.departs)} ({b.boarding} min at the "
                         f"airport before) and lands in {move.destination} at {clock(move.departs + move.minutes)} "
                         f"({b.landing} min to leave the airport)")
        elif item is None or move.origin != day.night or move.destination == item.city:
            parts.append(f"{move.label} from {move.origin} to {move.destination} takes {span(move.minutes)}")
    return "; ".join(parts)
