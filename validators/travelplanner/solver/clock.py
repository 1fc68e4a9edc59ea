"""The strict timeline's verdict on the day shapes the solver's model chooses among.

Every answer comes from the check's own clock (``trip_timeline.day_end``, ``trip_timeline.next_start``): the
model never holds a copy of a window, a least time or a boarding margin, so a witness keeps passing strict when
those conventions change. A day's shape is what the clock reads: its transport, which meals are eaten in which of
its cities, where its one sight is, and when it may start. Restaurants and sights of one city are interchangeable
to the clock, so one representative row of each city stands for all of them.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from ..checks.modes import STRICT
from ..checks.trip import Trip
from ..checks.trip_timeline import NIGHT_FREE, day_end, next_start
from ..query import Query
from ..store.sandbox import SandboxStore

MEALS = ("breakfast", "lunch", "dinner")
FROM, TO = "from", "to"
Sides = tuple[str | None, str | None, str | None]  # per meal of ``MEALS``: eaten in the origin, the destination, or not
NO_MEALS: Sides = (None, None, None)


def meal_patterns(origin_side: bool, destination_side: bool) -> list[Sides]:
    """Every way a travel day's meals may fall on its two cities (``origin_side``: its origin may host meals)."""
    sides: list[str | None] = [None, *([FROM] if origin_side else []), *([TO] if destination_side else [])]
    return [tuple(p) for p in product(sides, repeat=3)]  # type: ignore[misc]


def subpatterns(pattern: Sides) -> list[Sides]:
    """The patterns that drop some of ``pattern``'s meals (itself included)."""
    return [tuple(p) for p in product(*[(None,) if s is None else (None, s) for s in pattern])]  # type: ignore[misc]


class Clock:
    """Day shapes timed by the strict check's clock, memoised per shape."""

    def __init__(self, query: Query, store: SandboxStore):
        self.trip = Trip(query, [], store, STRICT)
        self._ends: dict[Any, int | None] = {}

    def end(self, index: int, unit: dict[str, str], start: int) -> int | None:
        """When day ``index`` (a day dict) is over at the earliest from ``start``; None when no schedule fits."""
        key = (index, tuple(sorted(unit.items())), start)
        if key not in self._ends:
            end = day_end(self.trip, index, unit, start)
            if isinstance(end, str):
                raise RuntimeError(f"the solver built a day the clock does not time ({end}): {unit}")
            self._ends[key] = end
        return self._ends[key]

    def carry(self, index: int, unit: dict[str, str], start: int) -> int | None:
        """When the next day may start after day ``index`` from ``start``; None when no schedule fits it. The
        model's days start at 00:00 at the earliest and assume no wait at the airport before it (a red-eye that
        needs the evening before is taken on the first day only, whose night before is free: ``fresh``), so a
        witness built from them fits the check's clock, which may allow more."""
        end = self.end(index, unit, start)
        return None if end is None else max(next_start(end), 0)


def fresh(index: int) -> int:
    """The start the model times day ``index`` from: the first day's night before is free (``NIGHT_FREE``), every
    other day starts at 00:00 with nothing before it."""
    return NIGHT_FREE if index == 0 else 0


def travel_day(leg: str, transport: str, origin: str, destination: str, pattern: Sides,
               meal_text: dict[str, str]) -> dict[str, str]:
    """A travel day's dict with ``pattern``'s meals (each a representative restaurant text of its city)."""
    unit = {"current_city": leg, "transportation": transport, "attraction": "-", "accommodation": "-"}
    for meal, side in zip(MEALS, pattern, strict=True):
        unit[meal] = "-" if side is None else meal_text[origin if side == FROM else destination]
    return unit


def stay_day(city: str, meal_text: str, sights: str | list[str]) -> dict[str, str]:
    """A stay day's dict: three meals in ``city`` and its sights (in ``city``, or one a day trip away)."""
    sights = [sights] if isinstance(sights, str) else sights
    return {"current_city": city, "transportation": "-", "breakfast": meal_text, "lunch": meal_text,
            "dinner": meal_text, "attraction": "".join(f"{s};" for s in sights), "accommodation": "-"}
