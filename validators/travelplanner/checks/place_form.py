"""Strict Q17: a field names exactly one place, and nothing else.

Upstream reads one place out of a field: the name after the field's last line break (``.`` stops at a
newline), the city after its last comma, and drops whatever ``(...)`` follows the city. So
``"Nonexistent Bistro\\n<real name>, City"`` is checked, charged and counted as ``<real name>``, and
``"<name>, City (then dinner at X)"`` claims a second place that nothing reads. Strict wants one line
and, after the city, nothing or that city's own ``(State)`` (as the gold plans write it). Attractions are
one place per ``;`` segment. Ten accommodation names in the database hold a line break; upstream's
parse cannot name them either (it reads only their last line), so no plan can book them in strict.
"""

from __future__ import annotations

from functools import lru_cache

from .trip import Trip


def one_line(text: str) -> bool:
    """No line break of any kind (``str.splitlines``' set: newline, carriage return, separators)."""
    if text.isprintable():  # every line break is unprintable: the common case costs one scan
        return True
    return len(text.splitlines()) <= 1 and not text.endswith(("\n", "\r"))


def city_form(text: str) -> str | tuple[str, str] | None:
    """A city as written, read without the database: None (a bare city), ``(city, state)`` (a suffix the
    city file must confirm), or why it is not one city. Short texts (every real city) are read once."""
    return _short_city_form(text) if len(text) <= 100 else _city_form(text)


def _city_form(text: str) -> str | tuple[str, str] | None:
    if not one_line(text):
        return f"{text!r} holds more than one line"
    if "(" not in text and ")" not in text:
        return None
    stripped = text.strip()
    cut = stripped.rfind("(")
    city = stripped[:cut].removesuffix(" ")  # ``City(State)`` or ``City (State)``
    state = stripped[cut + 1 : -1]
    if (cut <= 0 or not stripped.endswith(")") or not city or city != city.rstrip() or not state
            or "(" in city or ")" in city or ")" in state):
        return f"{stripped!r} carries text after its city that is not the city's state"
    return city, state


_short_city_form = lru_cache(maxsize=4096)(_city_form)


def place_form(text: str) -> str | tuple[str, str] | None:
    """``city_form`` for a ``Name, City`` item, which must also be one line (short items are read once)."""
    return _short_place_form(text) if len(text) <= 200 else _place_form(text)


def _place_form(text: str) -> str | tuple[str, str] | None:
    if not one_line(text):
        return f"{text!r} holds more than one line (only its last line is looked up)"
    city = text.rpartition(",")[2]
    return city_form(city) if city.strip() else None


_short_place_form = lru_cache(maxsize=16384)(_place_form)


def _confirmed(trip: Trip, form: str | tuple[str, str] | None, text: str) -> str | None:
    if form.__class__ is tuple:  # ``(city, state)``: the city file must give that state
        if trip.store.city_state.get(form[0]) != form[1]:
            return f"{text.strip()!r} carries text after its city that is not the city's state"
        return None
    return form  # type: ignore[return-value]


def city_form_failure(trip: Trip, text: str) -> str | None:
    """Why a city as written (``City`` or ``City(State)``) claims more than its city (None when it does not)."""
    if "(" not in text and ")" not in text and text.isprintable():
        return None  # the common case, answered without a parse
    return _confirmed(trip, _short_city_form(text) if len(text) <= 100 else _city_form(text), text)


def place_form_failure(trip: Trip, text: str) -> str | None:
    """Why a ``Name, City`` item holds more than one place (None when it names exactly one)."""
    if "(" not in text and ")" not in text and text.isprintable():
        return None
    form = _short_place_form(text) if len(text) <= 200 else _place_form(text)
    return None if form is None else _confirmed(trip, form, text.rpartition(",")[2])
