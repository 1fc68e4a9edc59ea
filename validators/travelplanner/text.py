"""Parsers for the upstream TravelPlanner string formats, with the upstream evaluator's exact semantics.

These reproduce the behaviour the official evaluator relies on (notes §4 "Parsing helpers"), including
the parts that look wrong: trailing text kept after the arrival city, no stripping before ``(State)``,
and a name/city split on the *last* comma.
"""

from __future__ import annotations

import re

# "from A to B": A is the shortest text before whitespace+"to"+whitespace; B runs to a comma or the end.
_FROM_TO = re.compile(r"from\s+(.+?)\s+to\s+([^,]+)(?=[,\s]|$)")
_BEFORE_PAREN = re.compile(r"^(.*?)\([^)]*\)")
_NAME_CITY = re.compile(r"(.*?),\s*([^,]+)(\(\w[\w\s]*\))?$")

NO_MORE_DAYS = "You don't need to fill in the information for this or later days."


def extract_from_to(text: str) -> tuple[str, str] | tuple[None, None]:
    """``"from A to B, ..."`` -> ``(A, B)``; ``(None, None)`` when absent. B keeps trailing punctuation."""
    match = _FROM_TO.search(text)
    if match is None:
        return None, None
    return match.group(1), match.group(2)


def before_parenthesis(text: str) -> str:
    """Text before the first ``(...)`` group, *not* stripped: ``"Austin (Texas)"`` -> ``"Austin "``.

    Raises TypeError on None, as upstream does; callers turn that into a failing verdict.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a city string, got {type(text).__name__}")
    if "(" not in text:
        return text
    match = _BEFORE_PAREN.search(text)
    return match.group(1) if match else text


def name_city(text: str) -> tuple[str, str]:
    """``"Name, City(State)"`` -> ``("Name", "City")``; text without a comma gives ``("-", "-")``.

    Split at the last comma; a string with a newline takes the regex path (``.`` stops at newlines).
    ``tests/travelplanner/test_text.py`` checks both paths agree with the upstream pattern.
    """
    if isinstance(text, str) and "\n" not in text:
        cut = text.rfind(",")
        if cut < 0 or cut == len(text) - 1:
            return "-", "-"
        return text[:cut].strip(), before_parenthesis(text[cut + 1 :].strip()).strip()
    return name_city_pattern(text)


def name_city_pattern(text: str) -> tuple[str, str]:
    """The upstream pattern itself, for any text."""
    match = _NAME_CITY.search(text)
    if match is None:
        return "-", "-"
    return match.group(1).strip(), before_parenthesis(match.group(2).strip()).strip()


def transport_kind(text: str) -> str | None:
    """Upstream's case-insensitive transport type: Taxi, then Self-driving, then Flight, else None."""
    low = text.lower()
    if "taxi" in low:
        return "Taxi"
    if "self-driving" in low:
        return "Self-driving"
    if "flight" in low:
        return "Flight"
    return None


def flight_number(text: str) -> str:
    """The number after the exact ``"Flight Number: "`` up to the next comma.

    Raises IndexError when that exact spelling is absent, as upstream does.
    """
    return text.split("Flight Number: ")[1].split(",")[0]


def attraction_items(text: str, drop_last: bool) -> list[str]:
    """Split an attraction field on ``;``. Upstream always drops the last segment (quirk 2)."""
    parts = text.split(";")
    if drop_last:
        return parts[:-1]
    return [p for p in (s.strip() for s in parts) if p]

