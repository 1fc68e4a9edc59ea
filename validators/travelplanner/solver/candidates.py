"""What a query can be planned with: the rows the solver's model chooses among, filtered in Python first.

Every filter is exact: it drops only a row that no plan passing strict can use (a listing that breaks the house
rule, a name the plan format cannot carry, a leg with no charge or no time), or a row that another kept row is at
least as good as in every respect the checks read (cost, cuisines, the times the clock reads). So the model's
optimum is the optimum over every plan, and "no plan" from the model is a proof.

A plan's shape (fixed by the checks): day 1 travels from ``org`` to the first city, each later city is reached by a
travel day, the last day travels home, and every other day is a stay day (three meals, one or more sights). A
city of ``N`` nights has ``N - 1`` stay days. One listing serves all of a city's nights (the cheapest listing
whose minimum nights the stay meets is never worse than a mix); a city's restaurants and sights are
interchangeable to every check but their cost and cuisines, and the repeat checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..checks.place_form import one_line
from ..checks.trip import normalised
from ..checks.trip_timeline import next_start
from ..checks.whereabouts import DAY_TRIP_KM, day_trip_reach
from ..query import HOUSE_RULE_TEXT, ROOM_TYPE_TEXT, Query
from ..store.sandbox import Accommodation, Attraction, Distance, Flight, Restaurant, SandboxStore, ground_cost, vehicles
from ..text import clock_minutes, duration_minutes
from .clock import FROM, NO_MEALS, Clock, Sides, fresh, meal_patterns, stay_day, subpatterns, travel_day

SEATS = {"self-driving": 5, "taxi": 4}
DRIVE, HIRE = "drive", "hire"  # the transport classes: self-driving, or flights and taxis (never mixed, check 5)


def place_text(name: str, city: str) -> str:
    return f"{name.strip()}, {city}"


def usable_name(name: str, attraction: bool = False) -> bool:
    """A name the plan format carries as one place: one line, not blank, no ``;`` in an attraction's."""
    return bool(name.strip()) and one_line(name) and not (attraction and ";" in name)


@dataclass(frozen=True)
class Lodging:
    """A city's listing for a stay of some nights: its row and what one night costs the party."""

    row: Accommodation
    night_cost: float


@dataclass
class City:
    """One city the trip may stay in, with what the model may choose there."""

    name: str
    lodging: dict[int, Lodging]  # nights -> the cheapest listing whose minimum nights that stay meets
    restaurants: list[Restaurant]  # the kept rows, cheapest first (each the first row of its name)
    groups: list[int]  # per restaurant: its repeat group (names equal once normalised repeat each other)
    attractions: list[Attraction]  # one per repeat group, in database order
    day_trips: dict[str, int] = field(default_factory=dict)  # partner city -> next start, for a day from 00:00
    most_sights: int = 1  # the most sights a stay day here fits (the rich objective; 1 otherwise)

    def meal_text(self) -> str:
        return place_text(self.restaurants[0].name, self.name)

    def sight_text(self) -> str:
        return place_text(self.attractions[0].name, self.name)


@dataclass
class Leg:
    """One way to travel on one day: ``day`` is the 0-based day, ``origin``/``destination`` city names."""

    day: int
    origin: str
    destination: str
    mode: str  # flight | self-driving | taxi
    cost: float  # for the whole party
    text: str  # the transport string the plan writes
    row: Flight | Distance
    fits: dict[Sides, int] = field(default_factory=dict)  # meal pattern -> next day's start, for a day from 00:00
    latest: dict[Sides, int] = field(default_factory=dict)  # meal pattern -> the latest start it fits (flights)

    @property
    def kind(self) -> str:
        return DRIVE if self.mode == "self-driving" else HIRE

    def unit(self, pattern: Sides, meal_text: dict[str, str]) -> dict[str, str]:
        """The travel day's dict with ``pattern``'s meals."""
        return travel_day(f"from {self.origin} to {self.destination}", self.text, self.origin, self.destination,
                          pattern, meal_text)


@dataclass
class Candidates:
    """Everything the model for one query is built from; ``reason`` is set when a filter already proves no plan."""

    query: Query
    cities: list[City]
    legs: list[Leg]
    stays: dict[str, int]  # city -> the next day's start after a stay day there from 00:00 (absent: none fits)
    patterns: list[list[Sides]]  # per day: the meal patterns a travel day may have
    cuisines: tuple[str, ...]
    sights: dict[str, list[Attraction]] = field(default_factory=dict)  # day-trip partners' sights
    rich: bool = False  # the model fills the days (travel-day meals, several sights) before it saves money
    reason: str | None = None
    code: str | None = None
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------------ places


def _first_rows(rows: Iterable[Any]) -> list[Any]:
    """The first row of each stripped name (the row a plan naming it is checked and charged by)."""
    seen: dict[str, Any] = {}
    for row in rows:
        seen.setdefault(row.name.strip(), row)
    return list(seen.values())


def _allowed(row: Accommodation, query: Query) -> bool:
    rule, room = query.local_constraint.house_rule, query.local_constraint.room_type
    if rule is not None and HOUSE_RULE_TEXT[rule] in str(row.house_rules):
        return False
    if room == "not shared room":
        return row.room_type != "Shared room"
    return room is None or row.room_type == ROOM_TYPE_TEXT[room]


def lodging_by_nights(rows: Sequence[Accommodation], query: Query, most_nights: int) -> dict[int, Lodging]:
    """For each stay of 1..``most_nights`` nights, the cheapest allowed listing whose minimum it meets."""
    people = query.people_number
    allowed = [r for r in _first_rows(rows) if usable_name(r.name) and _allowed(r, query)]
    priced = sorted(((r.price * vehicles(people, r.maximum_occupancy), r.minimum_nights, i, r)
                     for i, r in enumerate(allowed)), key=lambda t: (t[0], t[2]))
    out: dict[int, Lodging] = {}
    for nights in range(1, most_nights + 1):
        best = next((t for t in priced if t[1] <= nights), None)
        if best is not None:
            out[nights] = Lodging(best[3], best[0])
    return out


def _groups(rows: Sequence[Any]) -> list[int]:
    """Each row's repeat group: the diversity checks count two names equal once normalised as one place."""
    ids: dict[str, int] = {}
    return [ids.setdefault(normalised(r.name.strip()), len(ids)) for r in rows]


def keep_restaurants(rows: Sequence[Restaurant], cuisines: Sequence[str], most_meals: int) -> list[Restaurant]:
    """The restaurants an optimal plan may need, cheapest first.

    A plan eats at most ``most_meals`` meals in the city. Kept: the cheapest rows until ``most_meals`` repeat
    groups are covered (any meal that covers no required cuisine is best eaten there), and, per set of required
    cuisines a row serves, the cheapest rows until ``len(cuisines)`` groups are covered (a cover of the cuisines
    needs no more). Any other row is replaced, in any plan, by a kept one as cheap that no meal of the plan uses.
    """
    named = [r for r in _first_rows(rows) if usable_name(r.name)]
    ordered = sorted(range(len(named)), key=lambda i: (named[i].average_cost, i))
    group = _groups(named)
    keep: set[int] = set()

    def take(indexes: Iterable[int], groups_wanted: int) -> None:
        seen: set[int] = set()
        for i in indexes:
            if len(seen) >= groups_wanted and group[i] not in seen:
                break
            seen.add(group[i])
            keep.add(i)

    take(ordered, most_meals)
    if cuisines:
        by_served: dict[frozenset[str], list[int]] = {}
        for i in ordered:
            served = frozenset(c for c in cuisines if c in named[i].cuisines)
            if served:
                by_served.setdefault(served, []).append(i)
        for indexes in by_served.values():
            take(indexes, len(cuisines))
    return [named[i] for i in sorted(keep, key=lambda i: (named[i].average_cost, i))]


def usable_attractions(rows: Sequence[Attraction]) -> list[Attraction]:
    """One sight per repeat group, in database order."""
    out, seen = [], set()
    for row in _first_rows(rows):
        key = normalised(row.name.strip())
        if usable_name(row.name, attraction=True) and key not in seen:
            seen.add(key)
            out.append(row)
    return out


# ------------------------------------------------------------------------------------------------ legs


def flight_text(row: Flight, origin: str, destination: str) -> str:
    return (f"Flight Number: {row.flight_number}, from {origin} to {destination}, Departure Time: {row.dep_time}, "
            f"Arrival Time: {row.arr_time}")


def ground_text(mode: str, origin: str, destination: str, row: Distance, cost: int) -> str:
    label = "Self-driving" if mode == "self-driving" else "Taxi"
    return f"{label}, from {origin} to {destination}, duration: {row.duration}, distance: {row.distance}, cost: {cost}"


def leg_options(store: SandboxStore, query: Query, day: int, origin: str, destination: str) -> list[Leg]:
    """Every way to go from ``origin`` to ``destination`` on ``day`` that the query's rule allows (times unset)."""
    people, rule = query.people_number, query.local_constraint.transportation
    out: list[Leg] = []
    if rule != "no flight" and day < len(query.date):
        for flight in store.flights(origin, destination, query.date[day]):
            if store.flight_on_route(flight.flight_number, origin, destination, query.date[day]) != flight:
                continue  # a later row of the same number: the checks read the first
            if clock_minutes(flight.dep_time) is None or clock_minutes(flight.arr_time) is None:
                continue
            if not flight.flight_number[1:].isdigit() or not flight.flight_number.startswith("F"):
                continue
            out.append(Leg(day, origin, destination, "flight", flight.price * people,
                           flight_text(flight, origin, destination), flight, {}))
    row = store.distance(origin, destination)
    for mode in ("self-driving", "taxi"):
        if mode == "self-driving" and rule == "no self-driving":
            continue
        cost = ground_cost(store, origin, destination, mode)
        if cost is None or row is None or row.duration is None or duration_minutes(row.duration) is None:
            continue
        out.append(Leg(day, origin, destination, mode, cost * vehicles(people, SEATS[mode]),
                       ground_text(mode, origin, destination, row, cost), row, {}))
    return out


class Timer:
    """Legs timed by the clock: which meal patterns fit a day from 00:00 (the model's days all start then, the
    first with its night before free: ``fresh``; a day that must start later, after one that ran past midnight,
    is cut by the solver when a witness shows it), and the latest start each fits (what dominance between legs
    compares)."""

    def __init__(self, clock: Clock, meal_text: dict[str, str]):
        self.clock, self.meal_text = clock, meal_text
        self._ground: dict[tuple[str, str, int], dict[Sides, int]] = {}

    def time(self, leg: Leg, patterns: list[Sides]) -> None:
        """``leg.fits``. A pattern with all its meals is tried first: when it fits with the carry of no meals at
        all, so does every pattern with fewer meals (an item less never makes a day later).

        A ground leg is timed once per route (and set of patterns): the clock reads its duration from the
        distance table, the same for a car and a taxi, on any date (the witness check would show otherwise)."""
        if leg.mode != "flight":
            key = (leg.origin, leg.destination, len(patterns))
            if key not in self._ground:
                self._time(leg, patterns)
                self._ground[key] = leg.fits
            leg.fits = dict(self._ground[key])
            return
        self._time(leg, patterns)

    def _time(self, leg: Leg, patterns: list[Sides]) -> None:
        sides = [p for p in patterns if all(self.meal_text.get(leg.origin if s == FROM else leg.destination)
                                            for s in p if s is not None)]
        bare = self.clock.carry(leg.day, leg.unit(NO_MEALS, self.meal_text), fresh(leg.day))
        if bare is None:
            return
        for pattern in sorted(sides, key=lambda p: -sum(s is not None for s in p)):
            if pattern in leg.fits or pattern != NO_MEALS and pattern not in sides:
                continue
            carry = self.clock.carry(leg.day, leg.unit(pattern, self.meal_text), fresh(leg.day))
            if carry is None:
                continue
            leg.fits[pattern] = carry
            if carry == bare:
                for fewer in subpatterns(pattern):
                    leg.fits.setdefault(fewer, carry)
        leg.fits.setdefault(NO_MEALS, bare)

    def latest(self, leg: Leg, pattern: Sides) -> int:
        """The latest start from which ``pattern`` still fits the day (feasibility only shrinks with the start)."""
        if pattern not in leg.latest:
            unit, low, high = leg.unit(pattern, self.meal_text), 0, 24 * 60
            while low < high:  # the largest start that fits, in [0, 24 h)
                mid = (low + high + 1) // 2
                low, high = (mid, high) if self.clock.end(leg.day, unit, mid) is not None else (low, mid - 1)
            leg.latest[pattern] = low
        return leg.latest[pattern]

    def dominates(self, a: Leg, b: Leg) -> bool:
        """``a`` is as cheap as ``b``, of its class, and fits every pattern ``b`` fits, from every start ``b`` fits
        it from, with the next day free no later. A flight's carry does not depend on its day's start (it lands
        when it lands); a ground leg's grows with it. A flight never dominates a ground leg (which fits any start)."""
        if a.kind != b.kind or a.cost > b.cost or (a.mode == "flight") != (b.mode == "flight") and a.mode == "flight":
            return False
        if a.mode != "flight" and b.mode != "flight":
            return False  # one self-driving and one taxi leg per route and day: never of one class
        for pattern, carry in b.fits.items():
            if pattern not in a.fits:
                return False
            last = self.latest(b, pattern)
            if a.mode == "flight":
                if self.latest(a, pattern) < last or a.fits[pattern] > carry:
                    return False
            else:
                end = self.clock.end(a.day, a.unit(pattern, self.meal_text), last)
                if end is None or next_start(end) > carry:
                    return False
        return True

    def prune(self, legs: list[Leg]) -> list[Leg]:
        """The legs of one route and day that no other kept leg dominates (the first of equals is kept)."""
        kept: list[Leg] = []
        for leg in sorted(legs, key=lambda g: (g.cost, g.mode, g.text)):
            if not any(self.dominates(k, leg) for k in kept):
                kept.append(leg)
        return kept


# ------------------------------------------------------------------------------------------------ assembly


def candidate_cities(store: SandboxStore, query: Query) -> list[str]:
    """The cities the trip may stay in: the destination (3 days), or the cities of its state but the origin."""
    if query.days <= 3:
        return [query.dest] if query.dest in store.city_state else []
    return sorted(c for c, s in store.city_state.items() if s == query.dest and c != query.org)


RICH_SIGHTS = 3  # the most sights a stay day gets under the rich objective


def build(store: SandboxStore, query: Query, clock: Clock | None = None, rich: bool = False) -> Candidates:
    """The candidates of ``query``; ``reason`` names what already rules every plan out. ``rich``: also what the
    rich objective needs (every travel day's meal patterns, how many sights a stay day fits)."""
    clock = clock or Clock(query, store)
    days, n = query.days, query.visiting_city_number
    cuisines = tuple(query.local_constraint.cuisine or ())
    most_nights = days - n  # one city holds all the nights the others leave
    most_meals = 3 * days
    out = Candidates(query, [], [], {}, [[NO_MEALS] for _ in range(days)], cuisines, rich=rich)
    if query.org not in store.city_state:
        return _none(out, "origin", f"{query.org} is not a city of the database")
    if days < n + 1:
        return _none(out, "shape", f"{n} cities do not fit a {days}-day trip")
    names = candidate_cities(store, query)
    if not names:
        return _none(out, "cities", f"{query.dest} is neither a city of the database nor a state with cities")
    cities: list[City] = []
    lacking: dict[str, list[str]] = {}
    for name in names:
        lodging = lodging_by_nights(store.in_city("accommodations", name), query, most_nights)
        restaurants = keep_restaurants(store.in_city("restaurants", name), cuisines, most_meals)
        if not lodging:
            lacking.setdefault("no listing allowed", []).append(name)
        elif not restaurants:
            lacking.setdefault("no restaurant", []).append(name)
        else:
            cities.append(City(name, lodging, restaurants, _groups(restaurants),
                               usable_attractions(store.in_city("attractions", name))))
    if len(cities) < n:
        return _none(out, "cities", _too_few(query, names, cities, lacking))
    out.cities = cities
    if cuisines or rich:
        out.patterns = [meal_patterns(False, True)] + [meal_patterns(True, True)] * (days - 2) \
            + [meal_patterns(True, False)]
    _legs(store, query, clock, out)
    _stays(store, query, clock, out)
    return out


def _none(out: Candidates, code: str, reason: str) -> Candidates:
    out.code, out.reason = code, reason
    return out


def _too_few(query: Query, names: list[str], kept: list[City], lacking: dict[str, list[str]]) -> str:
    where = names[0] if len(names) == 1 else f"the {len(names)} cities of {query.dest} other than {query.org}"
    why = "; ".join(f"{k}: {', '.join(v[:6])}{' ...' if len(v) > 6 else ''}" for k, v in lacking.items())
    rules = [f"{k} {v!r}" for k, v in (("house rule", query.local_constraint.house_rule),
                                       ("room type", query.local_constraint.room_type)) if v]
    under = f" (allowed: {' and '.join(rules)}, minimum nights at most {query.days - query.visiting_city_number})"
    return (f"{len(kept)} of {where} can host a stay, {query.visiting_city_number} needed: {why}"
            f"{under if 'no listing allowed' in lacking else ''}")


def _legs(store: SandboxStore, query: Query, clock: Clock, out: Candidates) -> None:
    """Every day's legs that fit a day from 00:00, dominated ones dropped."""
    days, org = query.days, query.org
    names = [c.name for c in out.cities]
    timer = Timer(clock, {c.name: c.meal_text() for c in out.cities})
    for day in range(days):
        if day == 0:
            routes = [(org, b) for b in names]
        elif day == days - 1:
            routes = [(a, org) for a in names]
        elif query.visiting_city_number > 1:
            routes = [(a, b) for a in names for b in names if a != b]
        else:
            routes = []
        for origin, destination in routes:
            timed = []
            for leg in leg_options(store, query, day, origin, destination):
                timer.time(leg, out.patterns[day])
                if leg.fits:
                    timed.append(leg)
            out.legs += timer.prune(timed)


def _stays(store: SandboxStore, query: Query, clock: Clock, out: Candidates) -> None:
    """Whether a stay day in each city fits from 00:00, with its sight in the city or on a day trip (to a city of
    the same state within reach: only for cities with fewer sights than they may have stay days)."""
    most_stays = query.days - query.visiting_city_number - 1
    for city in out.cities:
        if city.attractions:
            carry = clock.carry(1, stay_day(city.name, city.meal_text(), city.sight_text()), 0)
            if carry is not None:
                out.stays[city.name] = carry
            for count in range(2, min(RICH_SIGHTS, len(city.attractions)) + 1 if out.rich else 0):
                texts = [place_text(a.name, city.name) for a in city.attractions[:count]]
                if clock.carry(1, stay_day(city.name, city.meal_text(), texts), 0) != 0:
                    break
                city.most_sights = count
        if len(city.attractions) >= most_stays:
            continue
        state = store.city_state.get(city.name)
        for other, other_state in sorted(store.city_state.items()):
            if other == city.name or other_state != state:
                continue
            sights = sights_in(store, other)
            reach = day_trip_reach(clock.trip, city.name, other)
            if not sights or reach is None or reach > DAY_TRIP_KM:
                continue
            carry = clock.carry(1, stay_day(city.name, city.meal_text(), place_text(sights[0].name, other)), 0)
            if carry is not None:
                city.day_trips[other] = carry
                out.sights[other] = sights


def sights_in(store: SandboxStore, city: str) -> list[Attraction]:
    """The usable sights of any city (a day trip's partner may be a city the trip does not stay in)."""
    return usable_attractions(store.in_city("attractions", city))


def money(values: Iterable[float]) -> int:
    """The scale that makes every cost an integer for the model: 1, or 100 when some cost has cents."""
    return 1 if all(float(v).is_integer() for v in values) else 100



