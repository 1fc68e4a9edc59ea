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

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..store.sandbox import SandboxStore
from ..text import attraction_items, before_parenthesis, extract_from_to, name_city, transport_kind


class PlanMemo:
    """Parses and place rows of one plan over one ``store`` (build one per plan: it grows with the plan)."""

    __slots__ = ("store", "_memoise", "_caches", "_name_city", "_from_to", "_city", "_rows")

    def __init__(self, store: SandboxStore):
        self.store = store
        self._memoise = getattr(store, "memoise", True)  # False: a baseline that looks up again, as upstream
        self._caches: dict[Callable, dict] = {}
        self._name_city: dict[str, tuple[str, str]] = {}
        self._from_to: dict[str, tuple[str, str] | tuple[None, None]] = {}
        self._city: dict[tuple[str, bool], str] = {}
        self._rows: dict[tuple[str, str, bool], list] = {}

    def parse(self, parser: Callable[[str], Any], text: Any) -> Any:
        """``parser(text)``, computed once per text (only text is kept: other values raise, as they did)."""
        cache = self._caches.get(parser)
        if cache is None:
            cache = self._caches[parser] = {}
        try:  # a hit, answered without a further call (the checks ask several parsers per item)
            return cache[text]
        except (KeyError, TypeError):
            return _cached(cache, parser, text)

    def name_city(self, text: Any) -> tuple[str, str]:
        try:  # the checks' most frequent question: answered without a further call
            return self._name_city[text]
        except (KeyError, TypeError):
            return _cached(self._name_city, _name_city, text)

    def from_to(self, text: Any) -> tuple[str, str] | tuple[None, None]:
        try:
            return self._from_to[text]
        except (KeyError, TypeError):
            return _cached(self._from_to, extract_from_to, text)

    def city(self, text: Any, strip: bool) -> str:
        """``before_parenthesis(text)``, stripped when ``strip`` (strict mode, Q10)."""
        try:
            return self._city[(text, strip)]
        except (KeyError, TypeError):
            city = before_parenthesis(text)  # raises on a non-string, as upstream
            if strip:
                city = city.strip()
            self._city[(text, strip)] = city  # only text reaches here
            return city

    def before_parenthesis(self, text: Any) -> str:
        return self.city(text, False)

    def transport_kind(self, text: Any) -> str | None:
        return self.parse(transport_kind, text)

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


def _cached(cache: dict, parser: Callable[[Any], Any], text: Any) -> Any:
    try:
        return cache[text]
    except KeyError:
        value = parser(text)
        if type(text) is str:
            cache[text] = value
        return value
    except TypeError:  # unhashable (a JSON list or object): the parser decides, and raises
        return parser(text)


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
