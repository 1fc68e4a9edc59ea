"""Database lookups shared by several checking passes over one plan (the reward-hacking monitor).

Checking a plan in ``strict`` and in ``official`` mode asks the database the same questions twice; only
the name match differs (equality in strict, substring in official). ``SharedLookups`` wraps a store for
one plan: every answer is kept, and a place lookup answers *both* match kinds from one scan of the
city's rows, so the second pass costs almost nothing in lookups. The match rules are the stores' own
(``Sandbox.places`` / ``SqliteStore.places``); ``tests/shaping/test_monitor.py`` holds them equal.
"""

from __future__ import annotations

from typing import Any

from .sandbox import Distance, Flight, SandboxStore


class SharedLookups:
    """A read-through memo over ``store`` for the checks of one plan (build one per plan: it grows)."""

    memoise = True

    def __init__(self, store: SandboxStore):
        self.store = store
        self.city_state = store.city_state
        self.source = getattr(store, "source", "?")
        self._places: dict[tuple[str, str, str], tuple[list, list]] = {}
        self._memo: dict[tuple, Any] = {}

    def places(self, table: str, name: str, city: str, exact: bool = False) -> list:
        key = (table, name, city)
        both = self._places.get(key)
        if both is None:
            equal: list = []
            within: list = []
            for row in self.store.in_city(table, city):
                if name in row.name:
                    within.append(row)
                    if row.name.strip() == name:
                        equal.append(row)
                elif row.name.strip() == name:  # a stored name with spaces around a longer query name
                    equal.append(row)
            both = self._places[key] = (equal, within)
        return list(both[0] if exact else both[1])

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
