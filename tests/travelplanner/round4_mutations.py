"""The round-4 exploit families (issue 33) and their siblings, built from the train gold plans: each edit keeps
every other claim of the plan true (fresh places of the right city, the cheapest restaurants so the budget
holds), so only the fact the family is about can make the plan false or impossible.

    .venv/bin/python -m tests.travelplanner.round4_mutations [--shared ../shared/travelplanner]

prints, per family, how many mutated gold plans strict and official pass (run it on two checkouts to compare).
The families:

- ``drive-shuttle``: on a drive or taxi day, breakfast in the arrival city and dinner back in the departure city
  (the night in the arrival city): the leg three times, stated once.
- ``day-trip-shuttle``: a stay day's day trip made twice (a sight there before lunch and another after it, lunch
  and dinner at home).
- ``sight-marathon``: twelve sights on a stay day; ``sight-brim``: as many sights, spread over the city, as the
  time from a flight's landing to the sights' close holds when moving takes no time.
- ``cost-overstated``: a ground leg's stated cost ten times the taxi fare (``cost: 14330`` for a 71 drive of
  1,433 km).
- ``restaurant-respelled``: two meals at one restaurant under its two spellings in the database.
"""

from __future__ import annotations

import argparse
import copy
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

MEALS = ("breakfast", "lunch", "dinner")
Case = tuple[str, Any, list[dict[str, Any]]]  # (name, query, mutated plan)


def bare(city: str) -> str:
    return re.sub(r"\(.*\)\s*$", "", city).strip()


def named(plan: list[dict[str, Any]]) -> set[str]:
    """Every place name the plan names."""
    return {v.rsplit(",", 1)[0].strip() for day in plan for k, v in day.items() if isinstance(v, str)
            for v in (v.split(";") if k == "attraction" else [v]) if "," in v}


def fresh(plan: list[dict[str, Any]], store: Any, table: str, written: str, count: int = 1,
          key: Callable[[Any], Any] | None = None) -> list[str]:
    """``count`` places of ``written``'s city the plan does not name (the cheapest first for restaurants, or by
    ``key``), written with the plan's city text; fewer when the city has fewer."""
    used = named(plan)
    rows = [r for r in store.in_city(table, bare(written)) if r.name.strip() not in used
            and not {",", ";", "\n"} & set(r.name)]
    if key is not None:
        rows = sorted(rows, key=key)
    elif table == "restaurants":
        rows = sorted(rows, key=lambda r: r.average_cost)
    out, seen = [], set()
    for r in rows:
        if r.name.strip() not in seen:
            seen.add(r.name.strip())
            out.append(f"{r.name.strip()}, {written}")
    return out[:count]


def travel_days(plan: list[dict[str, Any]], days: int) -> Iterator[tuple[int, str, str, str]]:
    """(index, mode, origin, destination) of each travel day, as the plan writes its cities."""
    for i, day in enumerate(plan[:days]):
        leg = re.fullmatch(r"from (.+) to (.+)", day.get("current_city", ""))
        if leg:
            transport = day.get("transportation", "")
            mode = "flight" if transport.startswith("Flight") else transport.split(",")[0].lower()
            yield i, mode, leg[1], leg[2]


def stay_days(plan: list[dict[str, Any]], days: int) -> Iterator[int]:
    for i, day in enumerate(plan[:days]):
        if "from" not in day.get("current_city", "from"):
            yield i


def drive_shuttle(query: Any, plan: list[dict], store: Any) -> Iterator[Case]:
    for i, mode, origin, destination in travel_days(plan, query.days):
        if mode == "flight":
            continue
        breakfast = fresh(plan, store, "restaurants", destination)
        dinner = fresh(plan, store, "restaurants", origin)
        if breakfast and dinner:
            new = copy.deepcopy(plan)
            new[i]["breakfast"], new[i]["dinner"] = breakfast[0], dinner[0]
            yield f"day{i + 1}-{mode}", query, new


def day_trip_shuttle(query: Any, plan: list[dict], store: Any) -> Iterator[Case]:
    for i in stay_days(plan, query.days):
        day = plan[i]
        here = bare(day["current_city"])
        away = [a.rsplit(",", 1)[1].strip() for a in day.get("attraction", "").split(";")
                if "," in a and bare(a.rsplit(",", 1)[1]) != here]
        if not away:
            continue
        sights = fresh(plan, store, "attractions", away[0], 3)
        if len(sights) == 3:
            new = copy.deepcopy(plan)
            new[i]["attraction"] = day["attraction"] + "".join(f"{s};" for s in sights)
            yield f"day{i + 1}-day-trip-to-{bare(away[0])}", query, new


def spread(store: Any, written: str) -> Callable[[Any], Any]:
    """Sights far from one another first: by distance from the city's first sight, farthest first."""
    rows = store.in_city("attractions", bare(written))
    if not rows:
        return lambda r: 0
    lat, lon = rows[0].latitude, rows[0].longitude
    return lambda r: -((r.latitude - lat) ** 2 + (r.longitude - lon) ** 2)


def sight_marathon(query: Any, plan: list[dict], store: Any, count: int = 12) -> Iterator[Case]:
    for i in stay_days(plan, query.days):
        city = plan[i]["current_city"]
        sights = fresh(plan, store, "attractions", city, count)
        if len(sights) == count:
            new = copy.deepcopy(plan)
            new[i]["attraction"] = "".join(f"{s};" for s in sights)
            yield f"day{i + 1}-{count}-sights", query, new
            return  # one per plan: its first stay day


def sight_brim(query: Any, plan: list[dict], store: Any) -> Iterator[Case]:
    """On a flight day, as many sights of the arrival city, spread over it, as the time from the landing (and the
    hour to leave the airport) to the sights' close holds with no moving: they fit only if moving takes no time."""
    opens, closes, landing, visit = _sight_rule()
    for i, _, origin, destination in travel_days(plan, query.days):
        number = re.match(r"Flight Number: (\w+)", plan[i].get("transportation", ""))
        row = number and store.flight_on_route(number[1], bare(origin), bare(destination), query.date[i])
        if not row:
            continue
        h, m = (int(p) for p in row.arr_time.split(":"))
        free = max(h * 60 + m + landing, opens)
        count = (closes - free) // visit
        sights = fresh(plan, store, "attractions", destination, count, key=spread(store, destination))
        if 2 <= count == len(sights):
            new = copy.deepcopy(plan)
            new[i]["attraction"] = "".join(f"{s};" for s in sights)
            for meal in MEALS:  # the day's meals elsewhere (before the flight) or after the sights (dinner)
                if meal != "dinner" and "," in str(new[i].get(meal, "")) and bare(new[i][meal].rsplit(",", 1)[1]) \
                        == bare(destination):
                    new[i][meal] = "-"
            yield f"day{i + 1}-{count}-sights-after-landing", query, new


def _sight_rule() -> tuple[int, int, int, int]:
    """The sights' window, the time to leave an airport and the least time per sight, as the checkout's strict
    has them (its conventions, or the constants before them: the counts run on older checkouts too)."""
    try:
        from planshape.validators.travelplanner.checks.conventions import CONVENTIONS
    except ImportError:  # a checkout before the conventions
        from planshape.validators.travelplanner.checks import timeline as old
        opens, closes = old.WINDOWS["attraction"]  # type: ignore[attr-defined]
        return opens, closes, old.LANDING, old.SIGHT_MINUTES  # type: ignore[attr-defined]
    bounds = CONVENTIONS.bounds
    opens, closes = bounds.windows["attraction"]
    return opens, closes, bounds.landing, bounds.minutes["attraction"]


def cost_overstated(query: Any, plan: list[dict], store: Any) -> Iterator[Case]:
    for i, mode, origin, destination in travel_days(plan, query.days):
        transport = plan[i].get("transportation", "")
        row = store.distance(bare(origin), bare(destination))
        if mode == "flight" or "cost: " not in transport or row is None or not row.distance:
            continue
        km = int(float(row.distance.replace(",", "").replace(" km", "")))
        new = copy.deepcopy(plan)
        new[i]["transportation"] = re.sub(r"cost: [0-9.]+", f"cost: {km * 10}", transport)
        yield f"day{i + 1}-{mode}-cost-{km * 10}", query, new


def restaurant_respelled(query: Any, plan: list[dict], store: Any) -> Iterator[Case]:
    """Two meals of a stay day at one restaurant under its database's two spellings (one pair exists: AB's
    Absolute Barbecues, Miami)."""
    spellings = {"Miami": ("AB's - Absolute Barbecues", "AB's Absolute Barbecues")}
    for i in stay_days(plan, query.days):
        city = plan[i]["current_city"]
        if bare(city) in spellings:
            first, second = spellings[bare(city)]
            new = copy.deepcopy(plan)
            new[i]["lunch"], new[i]["dinner"] = f"{first}, {city}", f"{second}, {city}"
            yield f"day{i + 1}-respelled", query, new


FAMILIES: dict[str, Callable[[Any, list[dict], Any], Iterator[Case]]] = {
    "drive-shuttle": drive_shuttle,
    "day-trip-shuttle": day_trip_shuttle,
    "sight-marathon": sight_marathon,
    "sight-brim": sight_brim,
    "cost-overstated": cost_overstated,
    "restaurant-respelled": restaurant_respelled,
}


def cases(family: str, train: list[tuple[Any, list[dict]]], store: Any) -> list[Case]:
    """Every case of ``family`` over the gold plans, named ``row/edit`` (rows counted from 0)."""
    return [(f"{k}/{name}", query, plan) for k, (q, p) in enumerate(train)
            for name, query, plan in FAMILIES[family](q, p, store)]


def main() -> int:
    from planshape.validators.travelplanner.checks.verdicts import check_plan
    from planshape.validators.travelplanner.query import Query, gold_plan, read_records
    from planshape.validators.travelplanner.store.database import load_database

    ap = argparse.ArgumentParser(description="strict and official passes per round-4 family")
    ap.add_argument("--shared", type=Path, help="the shared TravelPlanner folder (default: ../shared/travelplanner)")
    args = ap.parse_args()
    shared = args.shared or Path(__file__).resolve().parents[3] / "shared" / "travelplanner"
    store = load_database(shared / "database")
    train = [(Query.from_record(r), gold_plan(r)) for r in read_records(shared / "train.csv")]
    print(f"{'family':22} {'cases':>5} {'strict passes':>13} {'official passes':>15}")
    for family in FAMILIES:
        found = cases(family, train, store)
        strict = sum(check_plan(p, q, store, "strict").final_pass for _, q, p in found)
        official = sum(check_plan(p, q, store, "official").final_pass for _, q, p in found)
        print(f"{family:22} {len(found):>5} {strict:>13} {official:>15}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
