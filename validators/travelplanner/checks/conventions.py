"""Strict's conventions: the bounds a day's timeline needs that the database does not give.

The database has flight times and road durations, but no opening hours, no meal times, no time to leave an
airport and no least time per visit. Strict's timeline (Q19) and its day-trip reach (Q20) need such bounds, so
each is a *convention*: set so that no plausible human schedule fails (a 15:30 lunch after a 14:22 landing, an
evening at a pier after an 18:47 landing), documented with its evidence in docs/modes.md (*Conventions*), and
configurable (``ShapingConfig.conventions``). A day that fails only because of one is failed with the category
``convention``, never as physically impossible (``trip_timeline.timeline_failure``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MEALS = ("breakfast", "lunch", "dinner")
KINDS = (*MEALS, "attraction")
DAY = 24 * 60


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _minutes(text: Any) -> int:
    """``"11:00"`` -> 660 (``"24:00"``, the end of the day, included); an int is taken as minutes."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    elif isinstance(text, str) and text.count(":") == 1 and all(p.isdigit() for p in text.split(":")):
        hours, mins = (int(p) for p in text.split(":"))
        if mins > 59:
            raise ValueError(f"{text!r} is not a time of day (HH:MM)")
        value = hours * 60 + mins
    else:
        raise ValueError(f"{text!r} is not a time of day (HH:MM)")
    if not 0 <= value <= DAY:
        raise ValueError(f"{text!r} is outside the day (00:00-24:00)")
    return value


class Bounds:
    """The conventions as the timeline reads them: plain integers, hashed once (the timeline's caches key on
    them for every day they solve)."""

    __slots__ = ("windows", "minutes", "boarding", "landing", "sights", "_key", "_hash")

    def __init__(self, windows: dict[str, tuple[int, int]], minutes: dict[str, int], boarding: int, landing: int,
                 sights: int = DAY):
        self.windows, self.minutes, self.boarding, self.landing = windows, minutes, boarding, landing
        self.sights = sights  # the most sights a day holds
        self._key = (tuple(windows[k] for k in KINDS), tuple(minutes[k] for k in KINDS), boarding, landing, sights)
        self._hash = hash(self._key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Bounds) and self._key == other._key)

    def relaxed(self) -> Bounds:
        """The same day with every convention at its physical limit: any hour, no least time, no time at the
        airport, any number of sights. A day that fits these but not the conventions fails by a convention only."""
        return Bounds({k: (0, DAY) for k in KINDS}, dict.fromkeys(KINDS, 0), 0, 0, DAY)


class Conventions(BaseModel):
    """The bounds strict's timeline and day trips use where the database gives none (times ``HH:MM``).

    Windows are when a meal or a sight may take place (it must end by the window's close); meals are eaten in
    the order breakfast, lunch, dinner, so their windows must open in that order. Defaults: docs/modes.md."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    breakfast: tuple[str, str] = ("06:00", "12:00")
    lunch: tuple[str, str] = ("11:00", "16:30")
    dinner: tuple[str, str] = ("17:00", "23:30")
    attraction: tuple[str, str] = ("07:00", "22:00")
    meal_minutes: int = Field(default=30, ge=0, le=DAY)
    sight_minutes: int = Field(default=45, ge=0, le=DAY)
    sights_per_day: int = Field(default=8, ge=1, le=DAY)  # the most sights a day holds (its visits aside)
    boarding_minutes: int = Field(default=20, ge=0, le=DAY)
    landing_minutes: int = Field(default=60, ge=0, le=DAY)
    day_trip_km: float = Field(default=400.0, gt=0, allow_inf_nan=False)

    @field_validator("breakfast", "lunch", "dinner", "attraction", mode="before")
    @classmethod
    def _window(cls, value: Any) -> tuple[str, str]:
        if isinstance(value, str) and "-" in value:  # "11:00-16:30"
            value = tuple(value.split("-", 1))
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise ValueError(f"a window is two times of day, [opens, closes], e.g. ['11:00', '16:30']; got {value!r}")
        opens, closes = (_minutes(v.strip() if isinstance(v, str) else v) for v in value)
        if opens >= closes:
            raise ValueError(f"the window {hhmm(opens)}-{hhmm(closes)} closes before it opens")
        return hhmm(opens), hhmm(closes)

    @model_validator(mode="after")
    def _fits(self) -> Conventions:
        windows = self.windows
        for kind in KINDS:
            opens, closes = windows[kind]
            least = self.sight_minutes if kind == "attraction" else self.meal_minutes
            if closes - opens < least:
                raise ValueError(f"the {kind} window {hhmm(opens)}-{hhmm(closes)} is shorter than its least time "
                                 f"({least} min): no {kind} could ever fit")
        if not windows["breakfast"][0] <= windows["lunch"][0] <= windows["dinner"][0]:
            raise ValueError("meal windows must open in the order breakfast, lunch, dinner (meals are eaten in "
                             "that order)")
        return self

    @property
    def windows(self) -> dict[str, tuple[int, int]]:
        return {k: (_minutes(getattr(self, k)[0]), _minutes(getattr(self, k)[1])) for k in KINDS}

    @cached_property
    def bounds(self) -> Bounds:
        minutes = {k: self.sight_minutes if k == "attraction" else self.meal_minutes for k in KINDS}
        return Bounds(self.windows, minutes, self.boarding_minutes, self.landing_minutes, self.sights_per_day)


CONVENTIONS = Conventions()
