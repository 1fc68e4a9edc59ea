"""Database lookups shared by several checking passes over one plan (the reward-hacking monitor).

Checking a plan in ``strict`` and in ``official`` mode asks the database the same questions twice; only
the name match differs (equality in strict, substring in official). ``SharedLookups`` wraps a store for
one plan and keeps every answer, so the second pass asks the store only its own new questions. Each
answer is the store's own (both stores index names and cities, so no answer needs a scan here).
"""

from __future__ import annotations

from typing import Any

from ..store.sandbox import Distance, Flight, SandboxStore


class SharedLookups:
    """A read-through memo over ``store`` for the checks of one plan (build one per plan: it grows)."""

    memoise = True

    def __init__(self, store: SandboxStore):
        self.store = store
        self.city_state = store.city_state
        self.source = getattr(store, "source", "?")
        self._memo: dict[tuple, Any] = {}

    def counts(self) -> dict[str, int]:
        return self.store.counts()

    def places(self, table: str, name: str, city: str, exact: bool = False) -> list:
        """The store's answer, not kept here: ``PlanMemo`` keeps place rows per plan item."""
        return self.store.places(table, name, city, exact)

    def in_city(self, table: str, city: str) -> list:
        return list(self._ask("in_city", table, city))

    def flight_on_route(self, number: str, origin: str, destination: str, date: str | None = None) -> Flight | None:
        return self._ask("flight_on_route", number, origin, destination, date)

    def first_flight(self, number: str) -> Flight | None:
        return self._ask("first_flight", number)

    def flights(self, origin: str, destination: str, date: str) -> list[Flight]:
        return list(self._ask("flights", origin, destination, date))

    def distance(self, origin: str, destination: str) -> Distance | None:
        return self._ask("distance", origin, destination)

    def _ask(self, method: str, *args: Any) -> Any:
        key = (method, *args)
        try:
            return self._memo[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable argument (model output): ask the store, which decides
            return getattr(self.store, method)(*args)
        answer = self._memo[key] = getattr(self.store, method)(*args)
        return answer
