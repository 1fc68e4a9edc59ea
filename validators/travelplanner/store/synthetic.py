"""A synthetic full-size flights table (same columns and value ranges as the official one, deterministic),
for benchmarks and the scale test. The official table (~3.8 million rows) is not redistributed here.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np

from .database import FILES, database_paths, read_city_states

OFFICIAL_ROWS = 3_800_000
HEADER = ["Flight Number", "Price", "DepTime", "ArrTime", "ActualElapsedTime", "FlightDate", "OriginCityName",
          "DestCityName", "Distance"]


def synthetic_flight_lines(cities: list[str], rows: int, seed: int = 0, chunk: int = 200_000):
    """CSV lines (without header) of ``rows`` plausible flights in March 2022 between ``cities``."""
    rng = np.random.default_rng(seed)
    names = np.array(cities, dtype=object)
    done = 0
    while done < rows:
        n = min(chunk, rows - done)
        origin = rng.integers(0, len(names), n)
        dest = (origin + rng.integers(1, len(names), n)) % len(names)  # never the origin
        miles = np.round(rng.uniform(100, 2600, n))
        minutes = (miles / 8.5 + rng.integers(25, 60, n)).astype(int)  # ~510 mph plus taxiing
        dep = rng.integers(5 * 60, 23 * 60, n)
        arr = (dep + minutes + rng.integers(-180, 181, n) // 60 * 60) % (24 * 60)  # across time zones
        price = np.clip(np.round(miles * rng.uniform(0.08, 0.45, n) + rng.integers(20, 90, n)), 21, 1999).astype(int)
        day = rng.integers(1, 32, n)
        lines = []
        for i in range(n):
            lines.append(f"F{10_000_000 + done + i},{price[i]},{dep[i] // 60:02d}:{dep[i] % 60:02d},"
                         f"{arr[i] // 60:02d}:{arr[i] % 60:02d},{minutes[i] // 60} hours {minutes[i] % 60} minutes,"
                         f"2022-03-{day[i]:02d},{_q(names[origin[i]])},{_q(names[dest[i]])},{miles[i]:.1f}\n")
        yield "".join(lines)
        done += n


def _q(text: str) -> str:
    return f'"{text}"' if "," in text or '"' in text else text


def write_full_size_database(source: str | Path, target: str | Path, rows: int = OFFICIAL_ROWS, seed: int = 0) -> Path:
    """Copy a database directory and grow its flights table to ``rows`` rows.

    The source's own flight rows come first (so plans checked against the source still pass), followed by
    synthetic ones between the cities of the source's city file.
    """
    paths = database_paths(source)
    target = Path(target)
    for key, rel in FILES.items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        if key != "flights":
            shutil.copyfile(paths[key], target / rel)
    with open(paths["flights"], newline="", encoding="utf-8") as handle:
        real = list(csv.reader(handle))[1:]
    cities = sorted(read_city_states(paths["cities"]))
    with open(target / FILES["flights"], "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(real)
        for block in synthetic_flight_lines(cities, max(rows - len(real), 0), seed):
            out.write(block)
    return target
