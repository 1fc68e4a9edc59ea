"""The TravelPlanner sandbox: indexed, read-only lookups with the upstream evaluator's match semantics.

Upstream answers every lookup with a pandas boolean scan over a whole table; here each table is indexed
by city (and flights by number and route), so a lookup scans only one city's rows. The results, including
"first matching row wins" and substring name matching, are the same (notes §3 "Lookup semantics").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from ..text import before_parenthesis


class Restaurant(NamedTuple):
    name: str
    city: str
    cuisines: str
    average_cost: float
    aggregate_rating: float


class Attraction(NamedTuple):
    name: str
    latitude: float
    longitude: float
    address: str
    phone: str
    website: str
    city: str


class Accommodation(NamedTuple):
    name: str
    room_type: str
    price: float
    minimum_nights: float
    review_rate_number: float
    house_rules: str
    maximum_occupancy: float
    city: str


class Flight(NamedTuple):
    flight_number: str
    price: float
    dep_time: str
    arr_time: str
    actual_elapsed_time: str
    flight_date: str
    origin: str
    destination: str
    distance: float


class Distance(NamedTuple):
    """One row of the distance matrix; duration and distance are None where the CSV cell is empty."""

    origin: str
    destination: str
    duration: str | None
    distance: str | None




class SandboxStore(Protocol):
    """What checks and tools need from a database; the in-memory and on-disk stores both provide it."""

    @property
    def city_state(self) -> Mapping[str, str]: ...  # read-only here: a dict attribute provides it

    def places(self, table: str, name: str, city: str, exact: bool = False) -> list: ...
    def in_city(self, table: str, city: str) -> list: ...
    def flight_on_route(self, number: str, origin: str, destination: str, date: str | None = None) -> Flight | None: ...
    def first_flight(self, number: str) -> Flight | None: ...
    def flights(self, origin: str, destination: str, date: str) -> list[Flight]: ...
    def distance(self, origin: str, destination: str) -> Distance | None: ...
    def counts(self) -> dict[str, int]: ...


def name_key(name: str) -> str:
    """A place name as strict compares it: surrounding and repeated whitespace are spacing, not the name (151
    database names hold a double space; no two rows of one city differ only by it)."""
    return " ".join(name.split())


def _group(rows: Iterable, key: Callable[[Any], Any]) -> dict[Any, list]:
    out: dict[str, list] = {}
    for row in rows:
        out.setdefault(key(row), []).append(row)
    return out


def containing(rows: Iterable) -> dict[str, tuple]:
    """For each stored name (stripped) among ``rows``, the rows whose name contains it, in row order.

    Upstream matches a place by substring; a plan that names a real place asks exactly these names, so
    this index answers its lookups without a scan (``places(..., exact=False)``, official mode).
    """
    rows = tuple(rows)
    return {name: tuple(r for r in rows if name in r.name) for name in {r.name.strip() for r in rows}}


@dataclass
class Sandbox:
    """An in-memory sandbox; build it with ``load_database`` or ``sandbox_from_reference``."""

    restaurants: list[Restaurant]
    attractions: list[Attraction]
    accommodations: list[Accommodation]
    flight_rows: list[Flight]
    distances: list[Distance]
    city_state: dict[str, str]
    source: str = "memory"
    _by_city: dict[str, dict[str, list]] = field(init=False, repr=False)
    _by_name: dict[str, dict[Any, list]] = field(init=False, repr=False)
    _containing: dict[tuple[str, str], dict[str, tuple]] = field(init=False, repr=False)
    _first_flight: dict[str, Flight] = field(init=False, repr=False)
    _routes: dict[Any, list[Flight]] = field(init=False, repr=False)  # (number, origin, destination)
    _by_route_date: dict[Any, list[Flight]] = field(init=False, repr=False)  # (origin, destination, date)
    _distance: dict[tuple[str, str], Distance] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_city = {
            "restaurants": _group(self.restaurants, lambda r: r.city),
            "attractions": _group(self.attractions, lambda r: r.city),
            "accommodations": _group(self.accommodations, lambda r: r.city),
        }
        self._by_name = {table: _group(getattr(self, table), lambda r: (r.city, name_key(r.name)))
                         for table in self._by_city}
        self._containing = {}  # filled per (table, city) on its first substring lookup
        self._first_flight = {}
        for f in self.flight_rows:
            self._first_flight.setdefault(f.flight_number, f)
        self._routes = _group(self.flight_rows, lambda f: (f.flight_number, f.origin, f.destination))
        self._by_route_date = _group(self.flight_rows, lambda f: (f.origin, f.destination, f.flight_date))
        self._distance = {}
        for d in self.distances:
            self._distance.setdefault((d.origin, d.destination), d)

    def places(self, table: str, name: str, city: str, exact: bool = False) -> list:
        """Rows of ``table`` in ``city`` whose name contains ``name`` (upstream) or equals it, spacing aside
        (exact: ``name_key``)."""
        if exact:
            by_name = self._by_name[table]
            hit = by_name.get((city, name))  # the name as the plan writes it (most): no normalising
            return list(hit if hit is not None else by_name.get((city, name_key(name)), ()))
        rows = self._by_city[table].get(city, ())
        index = self._containing.get((table, city))
        if index is None:
            index = self._containing[(table, city)] = containing(rows)
        found = index.get(name)
        return list(found) if found is not None else [r for r in rows if name in r.name]

    def in_city(self, table: str, city: str) -> list:
        return list(self._by_city[table].get(city, ()))

    def flight_on_route(self, number: str, origin: str, destination: str, date: str | None = None) -> Flight | None:
        for f in self._routes.get((number, origin, destination), ()):
            if date is None or f.flight_date == date:
                return f
        return None

    def first_flight(self, number: str) -> Flight | None:
        return self._first_flight.get(number)

    def flight_at(self, index: int) -> Flight:
        """The flights table's row ``index`` (0-based, file order): what the query synthesizer samples."""
        return self.flight_rows[index]

    def flights(self, origin: str, destination: str, date: str) -> list[Flight]:
        return list(self._by_route_date.get((origin, destination, date), ()))

    def distance(self, origin: str, destination: str) -> Distance | None:
        return self._distance.get((origin, destination))

    def counts(self) -> dict[str, int]:
        """Rows per table, named as the SQLite store names them."""
        return {"restaurants": len(self.restaurants), "attractions": len(self.attractions),
                "accommodations": len(self.accommodations), "flights": len(self.flight_rows),
                "distances": len(self.distances), "cities": len(self.city_state)}


def ground_cost(store: SandboxStore, origin: str, destination: str, mode: str) -> int | None:
    """Upstream's evaluation-time ground cost: self-driving int(0.05·km), taxi int(km); None if unusable.

    The first distance row wins; a missing row, an empty cell or a duration of "days" gives None.
    Raises ValueError on a distance that is not a number, as upstream does.
    """
    row = store.distance(before_parenthesis(origin), before_parenthesis(destination))
    if row is None or row.duration is None or row.distance is None or "day" in row.duration:
        return None
    km = float(row.distance.replace("km", "").replace(",", ""))
    if "driving" in mode:
        return int(km * 0.05)
    if mode == "taxi":
        return int(km)
    return None


def vehicles(people: int, seats: int) -> int:
    """How many cars (5 seats) or taxis (4 seats) a party needs, as upstream counts them."""
    return math.ceil(people * 1.0 / seats)
