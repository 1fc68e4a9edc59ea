"""The evidence behind strict's timeline conventions for moving (docs/modes.md, *Moving between sights* and *A leg
driven more often than stated*), recomputed from the database and the 45 train gold plans.

    .venv/bin/python scripts/moving_evidence.py [--shared ../shared/travelplanner]

Prints: the distance table's lower envelope of drive times against the straight line between two cities (the
drive part of ``sight_moves.hop_minutes``); the slowest moving between sights every gold day admits; the gold days
whose items need their ground leg more than once, and how long that leg is (``trip_timeline.SHUTTLE_MINUTES``).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

from planshape.validators.travelplanner.checks import sight_moves, timeline, trip_timeline
from planshape.validators.travelplanner.checks.modes import STRICT
from planshape.validators.travelplanner.checks.trip import Trip
from planshape.validators.travelplanner.query import Query, gold_plan, read_records
from planshape.validators.travelplanner.store.database import load_database
from planshape.validators.travelplanner.text import distance_km, duration_minutes

SHARED = Path(__file__).resolve().parents[2] / "shared" / "travelplanner"
COMPACT_KM = 5.0  # a city is placed where half its sights lie within this of their median
SHORT_KM = 150.0


def city_places(path: Path) -> dict[str, tuple[float, float]]:
    """Each compact city's place: the median of its sights' coordinates."""
    points: dict[str, list[tuple[float, float]]] = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            points.setdefault(row["City"], []).append((float(row["Latitude"]), float(row["Longitude"])))
    out = {}
    for city, pts in points.items():
        centre = (statistics.median(p[0] for p in pts), statistics.median(p[1] for p in pts))
        if statistics.median(sight_moves.km_between(p, centre) for p in pts) < COMPACT_KM:
            out[city] = centre
    return out


def drive_envelope(database: Path) -> None:
    places = city_places(database / "attractions" / "attractions.csv")
    legs, seen = [], set()
    with open(database / "googleDistanceMatrix" / "distance.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            key = (row["origin"], row["destination"])
            if key in seen or not row["duration"] or not row["distance"] or "day" in row["duration"]:
                continue
            seen.add(key)
            if key[0] in places and key[1] in places:
                line = sight_moves.km_between(places[key[0]], places[key[1]])
                road, minutes = distance_km(row["distance"]), duration_minutes(row["duration"])
                if road is not None and minutes is not None and road >= 0.8 * line:  # places agree with the row
                    legs.append((line, road, minutes, key))
    print(f"drives between compact cities: {len(legs)}; road km / straight km, median "
          f"{statistics.median(r / s for s, r, _, _ in legs if s):.3f}")
    short = [leg for leg in legs if leg[0] < SHORT_KM]
    slope = sight_moves.DRIVE_MINUTES_PER_KM
    start, line, road, minutes, key = min((m - slope * s, s, r, m, k) for s, r, m, k in short)
    print(f"{len(short)} drives under {SHORT_KM:g} km: none faster than {start:.1f} min + {slope} min per straight km "
          f"(the fastest for its length: {key[0]} to {key[1]}, {line:.1f} km straight, {road:g} km, {minutes} min); "
          f"the convention: {sight_moves.DRIVE_START_MINUTES:g} min + {slope} min/km, or a walk at "
          f"{sight_moves.WALK_KMH:g} km/h")


def gold_failures(train: list, store) -> list[str]:
    for cached in (sight_moves.hop_table, timeline.routed, timeline.one_city, timeline.two_cities):
        cached.cache_clear()
    out = []
    for k, (query, plan) in enumerate(train):
        failure = trip_timeline.timeline_failure(Trip(query, plan[: query.days], store, STRICT))
        if failure:
            out.append(f"row {k + 1} {failure[:120]}")
    return out


def slowest_moving(train: list, store) -> None:
    """The slowest drive between sights (km/h over the straight line, no start) every gold day admits."""
    original = sight_moves.hop_minutes
    try:
        admitted = None
        for kmh in (30, 20, 15, 10, 8, 6, 5, 4, 3, 2):
            sight_moves.hop_minutes = lambda a, b, v=kmh: int(sight_moves.km_between(a, b) / v * 60 + 0.5)
            failures = gold_failures(train, store)
            if failures:
                print(f"moving at {kmh} km/h fails {len(failures)} gold plan(s), first: {failures[0]}")
                break
            admitted = kmh
        print(f"every gold day fits with moving between sights at {admitted} km/h over the straight line")
    finally:
        sight_moves.hop_minutes = original
        gold_failures(train, store)


def shuttles(train: list, store) -> None:
    """Gold days that need their ground leg more than once, and how long it is."""
    original = trip_timeline._legs
    try:
        trip_timeline._legs = lambda move: trip_timeline.STATED_LEGS
        for failure in gold_failures(train, store):
            print(f"needs its leg more than once: {failure}")
    finally:
        trip_timeline._legs = original
        gold_failures(train, store)
    print(f"a self-driving leg of at most {trip_timeline.SHUTTLE_MINUTES} min may be driven there and back once more")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=SHARED)
    args = ap.parse_args()
    database = args.shared / "database"
    store = load_database(database)
    train = [(Query.from_record(r), gold_plan(r)) for r in read_records(args.shared / "train.csv")]
    drive_envelope(database)
    slowest_moving(train, store)
    shuttles(train, store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
