"""How long moving from one sight to the next takes (strict Q19): a convention over the attractions table's
coordinates, as a lower bound of any real way.

The attractions table gives every sight's latitude and longitude; the restaurants and accommodations tables
give no place at all. So the clock times the way from one sight to the next of its city, and nothing to or
from a meal, a lodging or an airport: a meal between two sights lies somewhere on the way (no way through a
restaurant is shorter than the straight one, so the way is still charged, and fills the wait for the meal's
opening), and the distance table's city-to-city durations cover a drive or a flight between cities. The way between
two sights is the faster of a walk and a drive over the straight line between them, each as fast as the
evidence allows, so that no schedule a person could keep is failed (``scripts/moving_evidence.py`` prints
the numbers; docs/modes.md, *Moving between sights*):

- a walk at ``WALK_KMH`` along the straight line (a brisk 1.4 m/s, no detour: no street is shorter);
- a drive of ``DRIVE_START_MINUTES`` plus ``DRIVE_MINUTES_PER_KM`` per straight-line kilometre: the lower
  envelope of the distance table itself. Over its 310 drives between places less than 150 km apart (each
  city placed at the median of its sights, cities whose sights lie within 5 km of it), none is faster than
  7.6 minutes plus 0.5 minutes a kilometre (120 km/h).

The 45 gold plans pass with far slower moves (every gold day still fits at a 5 km/h drive with no start);
what bounds a run of close sights is the least time per sight, a convention of ``timeline``.
"""

from __future__ import annotations

import math
from functools import lru_cache

WALK_KMH = 5.0
DRIVE_START_MINUTES = 7.0
DRIVE_MINUTES_PER_KM = 0.5
EARTH_KM = 6371.0088  # the mean radius (IUGG)

Point = tuple[float, float]  # (latitude, longitude) in degrees


def km_between(a: Point, b: Point) -> float:
    """Great-circle kilometres between two points (haversine)."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_KM * math.asin(min(1.0, math.sqrt(h)))


def hop_minutes(a: Point, b: Point) -> int:
    """Whole minutes from the sight at ``a`` to the one at ``b``: the faster of the walk and the drive
    (rounded to the nearest minute)."""
    km = km_between(a, b)
    return int(min(km / WALK_KMH * 60, DRIVE_START_MINUTES + DRIVE_MINUTES_PER_KM * km) + 0.5)


@lru_cache(maxsize=4096)
def hop_table(points: tuple[Point, ...]) -> tuple[tuple[int, ...], ...]:
    """Minutes between every two of ``points`` (a day's sights in one city; batches repeat them)."""
    return tuple(tuple(0 if i == j else hop_minutes(a, b) for j, b in enumerate(points))
                 for i, a in enumerate(points))


def tree_bound(table: tuple[tuple[int, ...], ...], breaks: int) -> int:
    """A lower bound of the moving a day's sights need when up to ``breaks`` meals or moves may split them
    into separate runs: the shortest tree through them (Prim) less its ``breaks`` longest edges (a way
    through every run, joined, spans them all). For days with more sights than the exact search takes."""
    n = len(table)
    if n < 2:
        return 0
    inside, best, edges = [False] * n, [1 << 40] * n, []
    best[0] = 0
    for _ in range(n):
        i = min((k for k in range(n) if not inside[k]), key=best.__getitem__)
        inside[i] = True
        if best[i]:
            edges.append(best[i])
        for k in range(n):
            if not inside[k] and table[i][k] < best[k]:
                best[k] = table[i][k]
    edges.sort()
    return sum(edges[: max(0, len(edges) - breaks)])
