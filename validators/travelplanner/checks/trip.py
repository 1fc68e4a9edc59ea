"""One plan under check (``Trip``) and what every check shares: field tests, repeat keys, the day's leg.

A ``Trip`` holds the plan's first ``query.days`` days, the query, the database and the mode; its methods
answer the questions the checks ask of plan text (memoised in the plan's ``PlanMemo``), each with the
mode's quirk flag (``modes.Mode``) open (official) or closed (strict).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..query import Query
from ..reading import PlaceText, TransportText, canonical, read_transport
from ..store.sandbox import SandboxStore
from .modes import Mode
from .plan_memo import PlanMemo

Outcome = tuple[bool | None, str]
MEALS = ("breakfast", "lunch", "dinner")
TABLES = ("restaurants", "attractions", "accommodations")
DAY_KEYS = ("transportation", "breakfast", "lunch", "dinner", "attraction", "accommodation")


@dataclass(frozen=True)
class Trip:
    """One plan under check: the first ``query.days`` day dicts, the query, the database and the mode;
    ``extra`` holds the plan's later days (only strict reads them, Q18).

    ``memo`` keeps the plan's parses and place rows; passes over one plan may share it (the monitor does).
    """

    query: Query
    days: list[Any]
    store: SandboxStore
    mode: Mode
    memo: PlanMemo = field(default=None, compare=False, repr=False)  # type: ignore[assignment]  # set in __post_init__
    extra: list[Any] = field(default_factory=list, compare=False, repr=False)  # the days after ``query.days``

    def __post_init__(self) -> None:
        if self.memo is None:
            object.__setattr__(self, "memo", PlanMemo(self.store))
        elif self.memo.store is not self.store:
            raise ValueError("a PlanMemo serves the store it was built for: pass that store")
        if not self.mode.exact_spelling:  # Q22: each day's city as strict reads it ("Moline to Rockford")
            object.__setattr__(self, "days", self.memo.read_days(self.days))

    def city(self, text: Any) -> str:
        """A city name with its ``(State)`` removed; strict mode also strips spaces (Q10), and reads it as
        written (Q22: spaces collapsed, trailing punctuation dropped)."""
        if self.mode.unstripped_parenthesis:
            return self.memo.city(text, False)
        return self.memo.city(text, True if self.mode.exact_spelling else "read")

    def from_to(self, text: str) -> tuple[str, str] | tuple[None, None]:
        """``extract_from_to``, memoised: checks parse the same ``current_city`` several times."""
        return self.memo.from_to(text)

    def route(self, text: str) -> tuple[str, str]:
        """Both cities of a ``from A to B`` text; raises TypeError when there is none (upstream crash)."""
        origin, destination = self.memo.from_to(text)
        return self.city(origin), self.city(destination)

    def transport(self, value: Any) -> TransportText | None:
        """What a transport string states: strict's tolerant reading (``reading.py``), or with Q22 open the
        canonical string's fields (None for any other text)."""
        return self.memo.parse(canonical if self.mode.exact_spelling else read_transport, value)

    def items(self, attraction: str) -> list[str]:
        return self.memo.items(attraction, self.mode.drop_last_attraction)

    def places(self, table: str, text: str, unit: Any = None) -> list:
        """Database rows named by a ``Name, City`` plan item (memoised: checks look items up repeatedly). Strict
        (Q22) reads the item tolerantly (``place``); an item that names no city is looked up in ``unit``'s."""
        if self.mode.exact_spelling or self.mode.substring_match:
            return self.memo.places(table, text, not self.mode.substring_match)
        known = self.memo.read_rows
        try:  # the checks ask each item's rows several times: answered without a further call
            rows = known.get((table, text))
        except TypeError:  # unhashable
            rows = None
        if rows is not None:
            return rows
        read = self.memo.place(text)
        if read is None:
            return self.memo.places(table, text, True)
        if read.city is None:
            city = self.unnamed_city(read.name, unit)
            return self.memo.named(table, read.name, city) if city else []
        rows = known[(table, text)] = self.memo.named(table, read.name, read.city)
        return rows

    def place(self, text: Any) -> PlaceText | None:
        """What a place item states, as strict's reader reads it (None: not one line of text)."""
        return self.memo.place(text)

    def day_cities(self, unit: Any) -> tuple[str, ...]:
        """The cities a day is in: its leg's two, or its one (none when its ``current_city`` is unreadable)."""
        text = unit.get("current_city") if isinstance(unit, dict) else None
        if not isinstance(text, str):
            return ()
        if "from" in text:
            origin, destination = self.from_to(text)
            return () if origin is None or destination is None else (self.city(origin), self.city(destination))
        return (self.city(text),)

    def unnamed_city(self, name: str, unit: Any) -> str:
        """The city of an item written without one: the one of ``unit``'s cities with a place of that name
        ("" when none has one, or both have)."""
        found = [c for c in dict.fromkeys(self.day_cities(unit))
                 if any(self.memo.named(table, name, c) for table in TABLES)]
        return found[0] if len(found) == 1 else ""

    def flight_date(self, day: int) -> str | None:
        """The date a day's flight must fly on: None (any date) in official mode (Q7)."""
        if self.mode.ignore_flight_date or day >= len(self.query.date):
            return None
        return self.query.date[day]

    def normalised(self, text: str) -> str:
        """``normalised(text)``, memoised for the plan."""
        return self.memo.parse(normalised, text)

    def same(self, text: str) -> str:
        """The key under which two plan items count as a repeat (Q4: the raw string, or ``normalised``)."""
        return text if self.mode.exact_repeats else self.memo.parse(normalised, text)

    def row(self, table: str, text: Any, unit: Any = None) -> tuple[str, str, str] | None:
        """The database place an item names, as (table, name, city), unless Q11 is open or none matches:
        ``X, City``, ``X, City(S1)`` and ``X , City`` all name ``X`` in ``City``. A restaurant or sight is one
        place under each of its database spellings (letters and digits alike: "AB's - Absolute Barbecues"
        and "AB's Absolute Barbecues" in Miami are two rows of one restaurant); listings keep their names
        (hosts reuse titles for different homes)."""
        if self.mode.same_place_by_text:
            return None
        rows = self.places(table, text, unit)
        if not rows:
            return None
        name = rows[0].name.strip()
        return (table, name if table == "accommodations" else spelling(name), rows[0].city)

    def filled(self, value: Any) -> bool:
        """Whether a field holds something to check: upstream's truthy-and-not-``-``; strict also takes
        blank text (``" "``, ``" - "``) as empty (Q15)."""
        if not value or value == "-":  # ``filled``, inlined: the checks ask it for every field
            return False
        return self.mode.blank_fields_count or not (isinstance(value, str) and value.strip() in ("", "-"))

    def absent(self, value: Any) -> bool:
        """Complete Information's test for a missing field: only ``""`` and ``-`` upstream; strict adds null
        and blank values (Q15)."""
        if self.mode.blank_fields_count:
            return value in ("", "-")
        return not self.filled(value)

    def item_city(self, text: str, unit: Any = None) -> str:
        """The city a ``Name, City`` item is in: the city its database rows are looked up in. Strict (Q22) reads
        it tolerantly; an item that names no city is in the one of ``unit``'s cities that has it ("" if none)."""
        if self.mode.exact_spelling:
            return self.memo.name_city(text)[1]
        try:  # ``get``: nearly half the calls are a text's first (a raised KeyError costs more than the lookup)
            city = self.memo.read_city.get(text)
        except TypeError:  # unhashable
            city = None
        if city is not None:
            return city
        read = self.memo.place(text)
        if read is None:
            return self.memo.name_city(text)[1]
        if read.city is None:
            return self.unnamed_city(read.name, unit)
        self.memo.read_city[text] = read.city
        return read.city


def filled(value: Any) -> bool:
    """Upstream's guard before reading a field: truthy and not ``-``."""
    return bool(value) and value != "-"


@lru_cache(maxsize=65536)
def spelling(name: str) -> str:
    """A name's letters and digits, case folded: two database rows of one place under other punctuation or
    spacing have the same."""
    return "".join(c for c in name.casefold() if c.isalnum())


def normalised(text: str) -> str:
    """Text with whitespace collapsed, case folded, compatibility forms unified (NFKC: full-width letters)
    and invisible format characters (zero-width spaces) dropped."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", "".join(c for c in text if unicodedata.category(c) != "Cf"))
    return " ".join(text.split()).casefold()


class Seen:
    """Places met so far. Text keys go in a dict, so a long attraction list is checked in linear time;
    unhashable ones (a JSON list or object, which upstream compares with ``==``) in a short list."""

    def __init__(self, normalise: Any = None) -> None:
        self._normalise = normalise or normalised  # a plan's memoised ``normalised``: repeat keys reuse it
        self._keys: dict[Any, Any] = {}
        self._other: list[tuple[Any, Any]] = []
        self._rows: dict[tuple[str, str, str], tuple[str, Any]] = {}

    def add(self, key: Any, item: Any, row: tuple[str, str, str] | None = None) -> Any:
        """The item first met under ``key`` or (Q11) naming ``row``, or ``NEW`` after recording ``item``.

        A row repeats only when its texts differ beyond ``normalised`` (a suffix after the city, a space
        before the comma): whitespace and case variants are quirk 4's, so each quirk flag closes its own.
        """
        first = self._find(key)
        if first is not NEW:
            return first
        if row is not None:
            text = self._normalise(item)
            seen_text, first = self._rows.setdefault(row, (text, item))
            if seen_text != text:
                return first
        try:
            self._keys[key] = item
        except TypeError:  # unhashable
            self._other.append((key, item))
        return NEW

    def _find(self, key: Any) -> Any:
        try:
            return self._keys.get(key, NEW)
        except TypeError:  # unhashable
            return next((first for other, first in self._other if other == key), NEW)


NEW = object()


def day_leg(trip: Trip, unit: dict, value: str) -> tuple[str | None, str | None]:
    """The leg's cities from the transport text, else from ``current_city`` (upstream's fallback)."""
    origin, destination = trip.from_to(value)
    if origin is None or destination is None:
        origin, destination = trip.from_to(unit["current_city"])
    return origin, destination
