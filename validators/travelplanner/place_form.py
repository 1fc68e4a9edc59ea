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

import re

from .trip import Trip

_CITY_STATE = re.compile(r"^(?P<city>[^()]+?) ?\((?P<state>[^()]+)\)$")


def one_line(text: str) -> bool:
    """No line break of any kind (``str.splitlines``' set: newline, carriage return, separators)."""
    return len(text.splitlines()) <= 1 and not text.endswith(("\n", "\r"))


def city_form_failure(trip: Trip, text: str) -> str | None:
    """Why a city as written (``City`` or ``City(State)``) claims more than its city (None when it does not)."""
    if not one_line(text):
        return f"{text!r} holds more than one line"
    if "(" not in text and ")" not in text:
        return None
    m = _CITY_STATE.match(text.strip())
    if m is None or trip.store.city_state.get(m["city"].strip()) != m["state"]:
        return f"{text.strip()!r} carries text after its city that is not the city's state"
    return None


def place_form_failure(trip: Trip, text: str) -> str | None:
    """Why a ``Name, City`` item holds more than one place (None when it names exactly one)."""
    if not one_line(text):
        return f"{text!r} holds more than one line (only its last line is looked up)"
    city = text.rpartition(",")[2]
    return city_form_failure(trip, city) if city.strip() else None
