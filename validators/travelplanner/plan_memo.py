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
from typing import Any

from .sandbox import SandboxStore
from .text import attraction_items, before_parenthesis, extract_from_to, name_city, transport_kind


class PlanMemo:
    """Parses and place rows of one plan over one ``store`` (build one per plan: it grows with the plan)."""

    __slots__ = ("store", "_cache", "_rows")

    def __init__(self, store: SandboxStore):
        self.store = store
        self._cache: dict[tuple[Callable, Any], Any] = {}
        self._rows: dict[tuple[str, str, bool], list] = {}

    def parse(self, parser: Callable[[str], Any], text: Any) -> Any:
        """``parser(text)``, computed once per text (only text is kept: other values raise, as they did)."""
        key = (parser, text)
        try:
            return self._cache[key]
        except KeyError:
            value = parser(text)
            if type(text) is str:
                self._cache[key] = value
            return value
        except TypeError:  # unhashable (a JSON list or object): the parser decides, and raises
            return parser(text)

    def name_city(self, text: Any) -> tuple[str, str]:
        return self.parse(name_city, text)

    def from_to(self, text: Any) -> tuple[str, str] | tuple[None, None]:
        return self.parse(extract_from_to, text)

    def before_parenthesis(self, text: Any) -> str:
        return self.parse(before_parenthesis, text)

    def transport_kind(self, text: Any) -> str | None:
        return self.parse(transport_kind, text)

    def items(self, text: Any, drop_last: bool) -> list[str]:
        """The attraction items of a field (one list per text: read it, do not change it)."""
        return self.parse(_items_q2 if drop_last else _items, text)

    def places(self, table: str, text: Any, exact: bool) -> list:
        """Rows of ``table`` that a ``Name, City`` item names, by equality (``exact``) or substring."""
        if type(text) is not str or not getattr(self.store, "memoise", True):  # a baseline that re-scans as upstream
            name, city = name_city(text)
            return self.store.places(table, name, city, exact=exact)
        key = (table, text, exact)
        rows = self._rows.get(key)
        if rows is None:
            name, city = self.name_city(text)
            rows = self._rows[key] = self.store.places(table, name, city, exact=exact)
        return rows


def _items_q2(text: str) -> list[str]:
    """Upstream's items: the last segment dropped (Q2 open)."""
    return attraction_items(text, True)


def _items(text: str) -> list[str]:
    return attraction_items(text, False)
