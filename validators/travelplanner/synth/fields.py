"""A query's fields drawn in TravelPlanner's own shape (notes/travelplanner-official-eval.md §1).

The first leg is a flight row of the database (as the benchmark's queries are: they start where and when a
flight flies), to a city (3 days) or into a state with enough other cities (5 and 7 days: 2 and 3 cities).
Levels as the benchmark defines them: easy is one person and the budget only; medium adds exactly one of house
rule, cuisine (2 of them), room type; hard three of house rule, cuisine (4), room type, transportation, drawn
without replacement with weights 0.3, 0.1, 0.3, 0.3. Parties of 2 to 8 are drawn as often as in the validation
split's medium and hard queries; parties of more than 2 ask for private or entire rooms only.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..query import HOUSE_RULE_TEXT, ROOM_TYPES, TRANSPORT_RULES
from ..store.sandbox import SandboxStore

LEVELS = ("easy", "medium", "hard")
TRIP_DAYS = (3, 5, 7)
CUISINES = ("Chinese", "American", "Italian", "Mexican", "Indian", "Mediterranean", "French")
HARD_KINDS = {"house rule": 0.3, "cuisine": 0.1, "room type": 0.3, "transportation": 0.3}
PARTY_SIZES = {2: 70, 3: 16, 4: 11, 5: 7, 6: 3, 7: 7, 8: 6}  # the validation split's medium and hard queries
MONTH = (2022, 3)


@dataclass(frozen=True)
class Fields:
    """A query without its budget and text (the witness sets the one, the phrasing writes the other)."""

    org: str
    dest: str
    days: int
    visiting_city_number: int
    date: list[str]
    people_number: int
    level: str
    local_constraint: dict[str, Any] = field(default_factory=dict)

    def key(self) -> tuple:
        """What makes two queries the same query."""
        constraint = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in self.local_constraint.items())
        return (self.org, self.dest, self.days, tuple(self.date), self.people_number, self.level, constraint)

    def record(self, budget: float = 1.0) -> dict[str, Any]:
        return {"org": self.org, "dest": self.dest, "days": self.days,
                "visiting_city_number": self.visiting_city_number, "date": list(self.date),
                "people_number": self.people_number, "local_constraint": dict(self.local_constraint),
                "budget": budget, "level": self.level}


def flight_rows(store: SandboxStore) -> int:
    """How many flight rows the store holds (what the first leg is drawn from)."""
    if not callable(getattr(store, "flight_at", None)):
        raise ValueError(f"{type(store).__name__} cannot list its flights: synthesize from a database directory "
                         f"or a built store")
    count = int(store.counts().get("flights", 0))
    if count == 0:
        raise ValueError("the database has no flights: synthesized queries start with a flight")
    return count


def draw(store: SandboxStore, level: str, rng: np.random.Generator, flights: int) -> Fields | None:
    """One query's fields, or None when the drawn flight cannot start a trip of the drawn length (off the city
    file, leaving March, or into a state without enough other cities)."""
    days = int(rng.choice(TRIP_DAYS))
    cities = TRIP_DAYS.index(days) + 1
    row = store.flight_at(int(rng.integers(flights)))  # type: ignore[attr-defined]
    states = store.city_state
    if row.origin not in states or row.destination not in states or row.origin == row.destination:
        return None
    try:
        start = dt.date.fromisoformat(row.flight_date)
    except ValueError:
        return None
    end = start + dt.timedelta(days=days - 1)
    if (start.year, start.month) != MONTH or (end.year, end.month) != MONTH:
        return None
    dest = row.destination
    if days > 3:
        dest = states[row.destination]
        if sum(1 for c, s in states.items() if s == dest and c != row.origin) < cities:
            return None
    people = 1 if level == "easy" else int(rng.choice(list(PARTY_SIZES), p=_shares(PARTY_SIZES)))
    return Fields(row.origin, dest, days, cities, [(start + dt.timedelta(days=i)).isoformat() for i in range(days)],
                  people, level, constraints(level, people, rng))


def constraints(level: str, people: int, rng: np.random.Generator) -> dict[str, Any]:
    """The level's local constraints (every key present, None where not asked)."""
    out: dict[str, Any] = {"house rule": None, "cuisine": None, "room type": None, "transportation": None}
    if level == "easy":
        return out
    if level == "medium":
        kinds = [str(rng.choice(["house rule", "cuisine", "room type"]))]
    else:
        kinds = [str(k) for k in rng.choice(list(HARD_KINDS), size=3, replace=False, p=_shares(HARD_KINDS))]
    for kind in kinds:
        if kind == "house rule":
            out[kind] = str(rng.choice(list(HOUSE_RULE_TEXT)))
        elif kind == "cuisine":
            out[kind] = [str(c) for c in rng.choice(CUISINES, size=2 if level == "medium" else 4, replace=False)]
        elif kind == "room type":
            out[kind] = str(rng.choice(ROOM_TYPES if people <= 2 else ["private room", "entire room"]))
        else:
            out[kind] = str(rng.choice(TRANSPORT_RULES))
    return out


def _shares(weights: Mapping[Any, float]) -> np.ndarray:
    values = np.array(list(weights.values()), dtype=float)
    return values / values.sum()
