"""Mutated train gold plans that move the clock (issue 28's six families, generalised day by day): a meal or
sight put in the other city of a travel day or before an arrival, sights stacked onto a day, two sights far
apart, breakfast in the arrival city and dinner back in the departure city of a drive (issue 33), a dinner at
home before a long drive, a flight swapped for another of the same route and date (its stated times with
it). Each mutated plan is otherwise true: fresh places of the right city, times restated as the rows give
them, so only the clock can make it impossible. Used by ``test_timeline_properties.py``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

MEALS = ("breakfast", "lunch", "dinner")


def _bare(city: str) -> str:
    return re.sub(r"\(.*\)\s*$", "", city).strip()


class _Fresh:
    """Places of a city that the plan does not name yet, handed out once each."""

    def __init__(self, plan: list[dict], store: Any):
        self.store = store
        self.used = {v.rsplit(",", 1)[0].strip() for day in plan for k, v in day.items() if isinstance(v, str)
                     for v in (v.split(";") if k == "attraction" else [v]) if "," in v}

    def spread(self, table: str, written: str, count: int) -> list[str]:
        """``count`` places of the city farthest from its first one (a sight's coordinates), or none."""
        rows = self.store.in_city(table, _bare(written))
        if not rows:
            return []
        lat, lon = rows[0].latitude, rows[0].longitude
        rows = sorted(rows, key=lambda r: -((r.latitude - lat) ** 2 + (r.longitude - lon) ** 2))
        out = [f"{r.name.strip()}, {written}" for r in rows if r.name.strip() not in self.used
               and not {",", ";", "\n"} & set(r.name)][:count]
        self.used.update(o.rsplit(",", 1)[0] for o in out)
        return out if len(out) == count else []

    def take(self, table: str, written: str) -> str | None:
        city = _bare(written)
        for row in self.store.in_city(table, city):
            name = row.name.strip()
            if name not in self.used and "," not in name and ";" not in name and "\n" not in name:
                self.used.add(name)
                return f"{name}, {written}"
        return None


def timeline_mutations(plan: list[dict[str, Any]], days: int, dates: list[str], store: Any
                       ) -> Iterator[tuple[str, str, list[dict[str, Any]]]]:
    """``(name, kind, mutated plan)``: ``kind`` is what the edit adds to the clock (``meal`` or ``attraction``)."""
    for i, day in enumerate(plan[:days]):
        text = day.get("current_city", "")
        leg = re.fullmatch(r"from (.+) to (.+)", text)
        transport = day.get("transportation", "-")
        if leg:
            origin, destination = leg.groups()
            mode = "flight" if transport.startswith("Flight") else transport.split(",")[0].lower()
            for where, city in (("departure", origin), ("arrival", destination)):
                for meal in MEALS:  # a meal (in that slot) in one city of the day
                    fresh = _Fresh(plan, store).take("restaurants", city)
                    if fresh:
                        new = copy.deepcopy(plan)
                        new[i][meal] = fresh
                        yield f"day{i + 1}-{mode}-{meal}-in-{where}-city", "meal", new
                for count in (1, 3, 6):  # sights stacked in one city of the day
                    fresh_places = _Fresh(plan, store)
                    sights = [fresh_places.take("attractions", city) for _ in range(count)]
                    if all(sights):
                        new = copy.deepcopy(plan)
                        before = day.get("attraction", "-")
                        new[i]["attraction"] = ("" if before in ("-", "", None) else before) + "".join(
                            f"{s};" for s in sights)
                        yield f"day{i + 1}-{mode}-{count}-sights-in-{where}-city", "attraction", new
                far = _Fresh(plan, store).spread("attractions", city, 2)
                if far:  # two sights far apart: the way between them is on the clock
                    new = copy.deepcopy(plan)
                    before = day.get("attraction", "-")
                    new[i]["attraction"] = ("" if before in ("-", "", None) else before) + "".join(f"{s};" for s in far)
                    yield f"day{i + 1}-{mode}-2-far-sights-in-{where}-city", "attraction", new
            if mode != "flight":  # breakfast in the arrival city, dinner back in the departure city: the leg 3 times
                fresh_places = _Fresh(plan, store)
                breakfast = fresh_places.take("restaurants", destination)
                dinner = fresh_places.take("restaurants", origin)
                if breakfast and dinner:
                    new = copy.deepcopy(plan)
                    new[i]["breakfast"], new[i]["dinner"] = breakfast, dinner
                    yield f"day{i + 1}-{mode}-shuttle", "meal", new
            if mode == "flight":  # another flight of the same route and date, with its own times
                number = re.match(r"Flight Number: (\w+)", transport)[1]
                for row in store.flights(_bare(origin), _bare(destination), dates[i]):
                    if row.flight_number != number:
                        new = copy.deepcopy(plan)
                        new[i]["transportation"] = (f"Flight Number: {row.flight_number}, from {origin} to "
                                                    f"{destination}, Departure Time: {row.dep_time}, Arrival Time: "
                                                    f"{row.arr_time}")
                        yield f"day{i + 1}-flight-{row.flight_number}", "flight", new
        elif text:
            city = text
            for count in (3, 6, 10, 14):
                fresh_places = _Fresh(plan, store)
                sights = [fresh_places.take("attractions", city) for _ in range(count)]
                if all(sights):
                    new = copy.deepcopy(plan)
                    new[i]["attraction"] = day["attraction"] + "".join(f"{s};" for s in sights)
                    yield f"day{i + 1}-stay-{count}-sights", "attraction", new
            away = [a.rsplit(",", 1)[1].strip() for a in day.get("attraction", "").split(";")
                    if "," in a and _bare(a.rsplit(",", 1)[1]) != _bare(city)]
            if away:  # a day trip: more sights there
                for count in (1, 2, 4, 8):
                    fresh_places = _Fresh(plan, store)
                    sights = [fresh_places.take("attractions", away[0]) for _ in range(count)]
                    if all(sights):
                        new = copy.deepcopy(plan)
                        new[i]["attraction"] = day["attraction"] + "".join(f"{s};" for s in sights)
                        yield f"day{i + 1}-day-trip-{count}-more-sights", "attraction", new
