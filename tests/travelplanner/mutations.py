"""Mutated train gold plans: each edit states one thing the gold plan does not (a time, a distance, an
extra place, an extra day), or restates a true thing differently. Shared by the official-verdict replay
(``test_official_replay.py``) and the property test of issue 16's rules (``test_claims_properties.py``).

Only the plan text and public store lookups are used, and the plans are plain JSON, so the upstream evaluator
can be run on the same plans (``upstream/record.py`` writes its verdicts to ``data/upstream_verdicts.json``).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

MEALS = ("breakfast", "lunch", "dinner")
# kind -> True when the edit states something false (the rules of issue 16 may fail it), False when
# what it states is still true (no rule may fail it for that edit)
FALSE, TRUE = True, False


def _shift_clock(text: str, minutes: int) -> str:
    h, m = map(int, text.split(":"))
    total = (h * 60 + m + minutes) % 1440
    return f"{total // 60:02d}:{total % 60:02d}"


def _minutes_text(total: int) -> str:
    hours, mins = divmod(total, 60)
    unit = "hour" if hours == 1 else "hours"
    return f"{hours} {unit} {mins} mins" if hours else f"{mins} mins"


def _km_text(km: float) -> str:
    return f"{km:,.1f} km" if km < 100 else f"{km:,.0f} km"  # as the distance table writes them


def _duration(text: str) -> int:
    h = re.search(r"(\d+) hours?", text)
    m = re.search(r"(\d+) mins?", text)
    return (int(h[1]) * 60 if h else 0) + (int(m[1]) if m else 0)


def mutations(plan: list[dict[str, Any]], days: int, store: Any
              ) -> Iterator[tuple[str, bool | None, list[dict[str, Any]]]]:
    """``(name, states_something_false, mutated plan)`` for one gold plan of a ``days``-day query, with
    ``store`` for the distance table and city file. None: true or false depending on the flight's times."""
    for i, day in enumerate(plan[:days]):
        t = day.get("transportation", "-")
        if "Departure Time: " in t:
            dep = re.search(r"Departure Time: (\d+:\d+)", t)[1]
            arr = re.search(r"Arrival Time: (\d+:\d+)", t)[1]
            for shift in (-90, -1, 1, 240):
                for label, old in (("Departure", dep), ("Arrival", arr)):
                    new = copy.deepcopy(plan)
                    new[i]["transportation"] = t.replace(f"{label} Time: {old}", f"{label} Time: "
                                                         f"{_shift_clock(old, shift)}")
                    yield f"day{i + 1}-{label.lower()}{shift:+d}", FALSE, new
            for meal in MEALS:  # a meal moved across the flight: only the other city's hours are checked
                for other in MEALS:
                    if meal != other and day.get(meal, "-") != "-" and day.get(other, "-") == "-":
                        new = copy.deepcopy(plan)
                        new[i][other], new[i][meal] = day[meal], "-"
                        yield f"day{i + 1}-{meal}-as-{other}", None, new  # true or false by the clock
        elif "duration: " in t:
            stated = re.search(r"duration: ([^,]+)", t)[1]
            km = re.search(r"distance: (.+?) km", t)[1]
            for delta, truth in ((-180, FALSE), (-30, FALSE), (30, FALSE), (600, FALSE)):
                new = copy.deepcopy(plan)
                new[i]["transportation"] = t.replace(f"duration: {stated}",
                                                     f"duration: {_minutes_text(max(1, _duration(stated) + delta))}")
                yield f"day{i + 1}-duration{delta:+d}", truth, new
            value = float(km.replace(",", ""))
            for factor, truth in ((0.5, FALSE), (0.9, FALSE), (1.1, FALSE), (3.0, FALSE)):
                new = copy.deepcopy(plan)
                new[i]["transportation"] = t.replace(f"distance: {km} km", f"distance: {value * factor:,.0f} km")
                yield f"day{i + 1}-distance-x{factor}", truth, new
            leg = re.search(r"from (.+?) to ([^,]+)", t)
            row = store.distance(*(re.sub(r"\(.*", "", c).strip() for c in leg.groups()))
            if row is not None and row.duration and row.distance:  # the table's values, a little loose
                table_km = float(row.distance.replace(",", "").replace("km", ""))
                for delta in (-5, 5):
                    new = copy.deepcopy(plan)
                    new[i]["transportation"] = t.replace(
                        f"duration: {stated}", f"duration: {_minutes_text(_duration(row.duration) + delta)}"
                    ).replace(f"distance: {km} km", f"distance: {_km_text(table_km * (1 + delta / 250))}")
                    yield f"day{i + 1}-table-values{delta:+d}", TRUE, new
        for key in (*MEALS, "accommodation"):
            value = day.get(key, "-")
            if value and value != "-":
                new = copy.deepcopy(plan)
                new[i][key] = f"Nonexistent Bistro\n{value}"
                yield f"day{i + 1}-{key}-second-line", FALSE, new
                new = copy.deepcopy(plan)
                new[i][key] = f"{value} (then Nonexistent Bistro)"
                yield f"day{i + 1}-{key}-second-place", FALSE, new
                break
        attraction = day.get("attraction", "-")
        if attraction and attraction != "-":
            new = copy.deepcopy(plan)
            new[i]["attraction"] = "Nowhere Park\n" + attraction
            yield f"day{i + 1}-attraction-second-line", FALSE, new
        city = day.get("current_city", "")
        if "from" in city and 0 < i < days - 1:  # arrive without travelling: the leg's city, no transport
            new = copy.deepcopy(plan)
            new[i]["current_city"], new[i]["transportation"] = city.split(" to ")[-1], "-"
            yield f"day{i + 1}-teleport", FALSE, new
        if "from" not in city and "(" not in city and city in store.city_state:
            new = copy.deepcopy(plan)
            new[i]["current_city"] = f"{city}({store.city_state[city]})"  # as the gold plans write a state
            yield f"day{i + 1}-city-with-its-state", TRUE, new
        if "from" not in city and 0 < i < days - 1:  # day trips: one city stays allowed, two are out of reach
            trips = _day_trip_sights(plan, i, re.sub(r"\(.*", "", city).strip(), store)
            for label, count, truth in (("one-day-trip", 1, TRUE), ("day-trips-to-two-cities", 2, FALSE)):
                if len(trips) >= count:
                    new = copy.deepcopy(plan)
                    new[i]["attraction"] = str(day.get("attraction", "-")).removesuffix("-") + "".join(
                        f"{sight};" for sight in trips[:count])
                    yield f"day{i + 1}-{label}", truth, new
        new = copy.deepcopy(plan)
        new[i]["current_city"] = f"{city}, then on to Paris"
        yield f"day{i + 1}-city-travels-on", FALSE, new
        new = copy.deepcopy(plan)
        new[i]["days"] = 30
        yield f"day{i + 1}-numbered-30", FALSE, new
    yield "trip-twice", FALSE, copy.deepcopy(plan[:days]) * 2
    yield "padded-empty", TRUE, copy.deepcopy(plan[:days]) + [{}, {}, {}]


def _day_trip_sights(plan: list[dict[str, Any]], i: int, here: str, store: Any, reach_km: float = 340.0
                     ) -> list[str]:
    """An unvisited sight in each of the first two cities of ``here``'s state within a day trip's reach by road
    (the city day ``i`` already visits on a day trip first)."""
    seen = {re.sub(r"\([^()]*\)$", "", item.strip())  # "Name, City(State)" visits "Name, City"
            for day in plan for item in str(day.get("attraction", "")).split(";")}
    away = {re.sub(r"\(.*", "", item.rpartition(",")[2]).strip() for item in
            str(plan[i].get("attraction", "")).split(";") if "," in item} - {here}
    state, sights = store.city_state.get(here), []
    for there in sorted((c for c, s in store.city_state.items() if s == state and c != here),
                        key=lambda c: (c not in away, c)):
        row = store.distance(here, there)
        if row is None or not row.distance or not row.duration or "day" in row.duration:
            continue
        if float(row.distance.replace(",", "").replace("km", "")) > reach_km:
            continue
        fresh = [a.name for a in store.in_city("attractions", there) if f"{a.name}, {there}" not in seen]
        if fresh:
            sights.append(f"{fresh[0]}, {there}")
        if len(sights) == 2:
            break
    return sights
