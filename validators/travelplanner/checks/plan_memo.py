"""What the checks parse and look up in one plan, kept for every checking pass over it.

The checks read the same plan texts many times: a ``Name, City`` item is split for its sandbox lookup,
its city test and its cost; a ``from A to B`` text for the route, the city test and the transport leg.
None of these parses depends on the mode, so the reward-hacking monitor's passes (strict, official, and
the one-check re-runs that name an exploit's quirk) share one ``PlanMemo`` instead of parsing again.
Place rows depend on the mode only through the match kind, which is part of their key.

Only results are kept: a text a parser rejects (a non-string field) is parsed again each time and raises
as the parser does, so an unevaluable plan fails at the same point, with the same reason, memo or not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from ..reading import PlaceText, read_current_city, read_place
from ..store.sandbox import SandboxStore, name_key
from ..text import attraction_items, before_parenthesis, extract_from_to, name_city, transport_kind


class PlanMemo:
    """Parses and place rows of one plan over one ``store`` (build one per plan: it grows with the plan)."""

    __slots__ = ("store", "_memoise", "_caches", "_name_city", "_from_to", "_city", "_rows", "_place", "_named",
                 "_cities", "_places", "read_rows", "read_city")

    def __init__(self, store: SandboxStore):
        self.store = store
        self._memoise = getattr(store, "memoise", True)  # False: a baseline that looks up again, as upstream
        self._caches: dict[Callable, dict] = {}
        self._name_city: dict[str, tuple[str, str]] = {}
        self._from_to: dict[str, tuple[str, str] | tuple[None, None]] = {}
        self._city: dict[tuple[str, bool | str], str] = {}
        self._rows: dict[tuple[str, str, bool], list] = {}
        self._place = place_reader(store.city_state)
        self._cities = city_set(store.city_state)
        self._named: dict[tuple[str, str, str], list] = {}
        self._places: dict[str, PlaceText | None] = {}
        self.read_rows: dict[tuple[str, str], list] = {}  # strict's rows of (table, item) that names its city
        self.read_city: dict[str, str] = {}  # and the city of such an item

    def parse(self, parser: Callable[[str], Any], text: Any) -> Any:
        """``parser(text)``, computed once per text (only text is kept: other values raise, as they did)."""
        cache = self._caches.get(parser)
        if cache is None:
            cache = self._caches[parser] = {}
        try:  # ``get``: a third of the calls are a text's first (a raised KeyError would cost more than the lookup)
            hit = cache.get(text, _MISSING)
        except TypeError:  # unhashable: the parser decides, and raises
            return parser(text)
        return _cached(cache, parser, text) if hit is _MISSING else hit

    def name_city(self, text: Any) -> tuple[str, str]:
        try:  # the checks' most frequent question: answered without a further call
            return self._name_city[text]
        except (KeyError, TypeError):
            return _cached(self._name_city, _name_city, text)

    def from_to(self, text: Any) -> tuple[str, str] | tuple[None, None]:
        try:
            hit = self._from_to.get(text)  # never None: a pair
        except TypeError:
            hit = None
        return _cached(self._from_to, extract_from_to, text) if hit is None else hit

    def city(self, text: Any, strip: bool | str) -> str:
        """``before_parenthesis(text)``, stripped when ``strip`` (strict mode, Q10); ``strip="read"`` (strict's
        reader, Q22) also collapses its spaces and drops trailing punctuation (``"St.  Petersburg."``)."""
        try:
            return self._city[(text, strip)]
        except (KeyError, TypeError):
            city = before_parenthesis(text)  # raises on a non-string, as upstream
            if strip == "read":
                city = " ".join(city.split()).rstrip(" .!?;:,")
            elif strip:
                city = city.strip()
            self._city[(text, strip)] = city  # only text reaches here
            return city

    def before_parenthesis(self, text: Any) -> str:
        return self.city(text, False)

    def transport_kind(self, text: Any) -> str | None:
        return self.parse(transport_kind, text)

    def read_days(self, days: list[Any]) -> list[Any]:
        """``days`` with each ``current_city`` as strict reads it (``reading.read_current_city``); the list itself
        when every day's already reads as written (the common case: nothing is copied)."""
        cities = self._cities
        out = days
        for i, day in enumerate(days):
            if day.__class__ is dict and (text := day.get("current_city")).__class__ is str:
                read = read_current_city(text, cities)
                if read is not text and read != text:
                    out = list(out) if out is days else out
                    out[i] = {**day, "current_city": read}
        return out

    def place(self, text: Any) -> PlaceText | None:
        """Strict's reading of a place item (``reading.read_place``), once per text."""
        try:  # ``get``: most calls are a text's first (a raised and caught KeyError costs several lookups' time)
            read: Any = self._places.get(text, _MISSING)  # None is a reading: "not one line of text"
        except TypeError:  # unhashable: the reader decides
            return self._place(text)
        if read is _MISSING:
            read = self._place(text)
            if type(text) is str:
                self._places[text] = read
        return read

    def named(self, table: str, name: str, city: str) -> list:
        """Rows of ``table`` in ``city`` whose name is ``name``, spacing aside (one list per question); failing
        that, the one row whose name is ``name`` as written apart from case, punctuation, ``&``/``and`` and a
        leading "The" (``Buffalo Zoo`` is ``The Buffalo Zoo``), or whose name is ``name, city`` (the database's
        ``The Museum of Fine Arts, Houston``)."""
        key = (table, name, city)
        rows = self._named.get(key)  # most questions are asked once: no KeyError raised and caught
        if rows is not None:
            return rows
        rows = self.store.places(table, name, city, exact=True)  # the reader's names are spaced as the keys
        if not rows:
            rows = self.store.places(table, name_key(f"{name}, {city}"), city, exact=True) or \
                   spelled(self.store, table, name, city)
        self._named[key] = rows
        return rows

    def items(self, text: Any, drop_last: bool) -> list[str]:
        """The attraction items of a field (one list per text: read it, do not change it)."""
        return self.parse(_items_q2 if drop_last else _items, text)

    def places(self, table: str, text: Any, exact: bool) -> list:
        """Rows of ``table`` that a ``Name, City`` item names, by equality (``exact``) or substring (one list
        per item: read it, do not change it)."""
        try:
            return self._rows[(table, text, exact)]
        except (KeyError, TypeError):
            pass
        name, city = self.name_city(text)
        if type(text) is not str or not self._memoise:
            return self.store.places(table, name, city, exact=exact)
        rows = self._rows[(table, text, exact)] = self.store.places(table, name, city, exact=exact)
        return rows


_MISSING = object()
Bound = tuple[Mapping[str, str], frozenset[str], Callable[[Any], "PlaceText | None"]]
_READERS: dict[int, Bound] = {}


def _bound(city_state: Mapping[str, str]) -> Bound:
    """A store's cities, and ``read_place`` bound to its cities and states (built once per store's city file)."""
    hit = _READERS.get(id(city_state))
    if hit is None or hit[0] is not city_state:
        cities, states = frozenset(city_state), frozenset(city_state.values())

        def reader(text: Any) -> PlaceText | None:
            return read_place(text, cities, states)

        hit = _READERS[id(city_state)] = (city_state, cities, reader)
    return hit


def spelled(store: Any, table: str, name: str, city: str) -> list:
    """The rows of the one place of ``city`` whose name reads as ``name`` (``spelling``), or none (no place, or
    several: then the name does not say which)."""
    base = getattr(store, "store", store)  # a SharedLookups' own store keeps the index
    index = base.__dict__.setdefault("_spellings", {}) if hasattr(base, "__dict__") else {}
    key = (table, city)
    if key not in index:
        by_spelling: dict[str, list] = {}
        for row in store.in_city(table, city):
            by_spelling.setdefault(spelling(row.name), []).append(row)
        index[key] = by_spelling
    rows = index[key].get(spelling(name), [])
    return list(rows) if len({name_key(r.name) for r in rows}) == 1 else []


def spelling(name: str) -> str:
    """A name with case, punctuation, ``&``/``and`` and a leading "The" set aside."""
    words = re.sub(r"[^\w\s]", " ", name.casefold().replace("&", " and ")).split()
    return " ".join(words[1:] if words[:1] == ["the"] and len(words) > 1 else words)


def place_reader(city_state: Mapping[str, str]) -> Callable[[Any], PlaceText | None]:
    return _bound(city_state)[2]


def city_set(city_state: Mapping[str, str]) -> frozenset[str]:
    return _bound(city_state)[1]


def _cached(cache: dict, parser: Callable[[Any], Any], text: Any) -> Any:
    """``parser(text)`` after a miss in ``cache``, kept when ``text`` is text (an unhashable value, a JSON list or
    object, is the parser's to decide, and raise)."""
    value = parser(text)
    if type(text) is str:
        cache[text] = value
    return value


def _items_q2(text: str) -> list[str]:
    """Upstream's items: the last segment dropped (Q2 open)."""
    return attraction_items(text, True)


def _items(text: str) -> list[str]:
    return attraction_items(text, False)


_short_name_city = lru_cache(maxsize=16384)(name_city)  # as place_form's: a few MB at most


def _name_city(text: str) -> tuple[str, str]:
    """``name_city``; a short text (every real item) is split once per process: a batch's plans name the
    same places over and over (a group of rollouts of one task, most of all)."""
    return _short_name_city(text) if type(text) is str and len(text) <= 200 else name_city(text)
