"""Load the official TravelPlanner database directory with the upstream loaders' semantics.

Upstream reads each CSV with pandas defaults, drops every row with a missing value (all tables but the
distance matrix), then keeps its columns. Here the same cells count as missing (pandas' default NA
strings), rows are dropped the same way, and a malformed file fails at load time naming file and line.
Deviation, documented: a non-numeric value in a numeric column is an error here, where pandas would
silently turn the whole column into strings.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .sandbox import Accommodation, Attraction, Distance, Flight, Restaurant, Sandbox

csv.field_size_limit(1 << 30)

# pandas.read_csv's default na_values (pandas >= 2.0).
NA_STRINGS = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
     "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)

FILES = {
    "restaurants": "restaurants/clean_restaurant_2022.csv",
    "attractions": "attractions/attractions.csv",
    "accommodations": "accommodations/clean_accommodations_2022.csv",
    "flights": "flights/clean_Flights_2022.csv",
    "distances": "googleDistanceMatrix/distance.csv",
    "cities": "background/citySet_with_states.txt",
}


class DatabaseError(ValueError):
    """A database file is missing or malformed; the message names the file (and line)."""


def _number(value: str) -> float | int:
    text = value.strip()
    try:
        return int(text)
    except ValueError:
        return float(text)


# (row type, [(csv column, converter)]) in the row type's field order.
_S, _N = str, _number
SPECS: dict[str, tuple[type, list[tuple[str, Callable]]]] = {
    "restaurants": (Restaurant, [("Name", _S), ("City", _S), ("Cuisines", _S), ("Average Cost", _N),
                                 ("Aggregate Rating", _N)]),
    "attractions": (Attraction, [("Name", _S), ("Latitude", _N), ("Longitude", _N), ("Address", _S),
                                 ("Phone", _S), ("Website", _S), ("City", _S)]),
    "accommodations": (Accommodation, [("NAME", _S), ("room type", _S), ("price", _N), ("minimum nights", _N),
                                       ("review rate number", _N), ("house_rules", _S),
                                       ("maximum occupancy", _N), ("city", _S)]),
    "flights": (Flight, [("Flight Number", _S), ("Price", _N), ("DepTime", _S), ("ArrTime", _S),
                         ("ActualElapsedTime", _S), ("FlightDate", _S), ("OriginCityName", _S),
                         ("DestCityName", _S), ("Distance", _N)]),
}


def read_rows(path: Path, table: str) -> Iterator[Any]:
    """Yield typed rows of one table, dropping rows with any missing cell, as upstream's ``dropna()``."""
    row_type, columns = SPECS[table]
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise DatabaseError(f"{path}: empty file, expected a header with {[c for c, _ in columns]}")
        missing = [c for c, _ in columns if c not in header]
        if missing:
            raise DatabaseError(f"{path}: line 1: missing column(s) {missing}")
        where = [header.index(c) for c, _ in columns]
        width = len(header)
        for cells in reader:
            if not cells or (len(cells) == 1 and cells[0] == ""):
                continue  # pandas skips blank lines
            if len(cells) > width:
                raise DatabaseError(f"{path}: line {reader.line_num}: expected {width} fields, saw {len(cells)}")
            if len(cells) < width or any(c in NA_STRINGS for c in cells):
                continue  # short rows are NaN-filled by pandas, then dropped
            try:
                yield row_type(*(conv(cells[i]) for i, (_, conv) in zip(where, columns, strict=True)))
            except ValueError as exc:
                raise DatabaseError(f"{path}: line {reader.line_num}: {exc}") from None


def _cell(value: str | None) -> str | None:
    return None if value is None or value in NA_STRINGS else value


def read_distances(path: Path) -> Iterator[Distance]:
    """The distance matrix keeps rows with empty cells (upstream does not drop them)."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"origin", "destination", "duration", "distance"} - set(reader.fieldnames or ())
        if missing:
            raise DatabaseError(f"{path}: line 1: missing column(s) {sorted(missing)}")
        for row in reader:
            if None in row:
                raise DatabaseError(f"{path}: line {reader.line_num}: too many fields")
            yield Distance(row["origin"], row["destination"], _cell(row["duration"]), _cell(row["distance"]))


def read_city_states(path: Path) -> dict[str, str]:
    """``City<TAB>State`` per line. Blank lines are tolerated (upstream crashes on a trailing newline)."""
    out: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise DatabaseError(f"{path}: line {number}: expected 'City<TAB>State', got {line!r}")
        out[parts[0]] = parts[1]
    return out


def database_paths(directory: str | Path) -> dict[str, Path]:
    """The path of every file the sandbox needs; a clear error if the directory or a file is missing."""
    root = Path(directory)
    if not root.is_dir():
        raise DatabaseError(f"{root}: not a directory; pass the TravelPlanner 'database' folder")
    paths = {key: root / rel for key, rel in FILES.items()}
    absent = [str(p) for p in paths.values() if not p.is_file()]
    if absent:
        raise DatabaseError(f"{root}: missing database file(s): {', '.join(absent)}")
    return paths


def load_database(directory: str | Path) -> Sandbox:
    """Read an official-layout database directory into an in-memory ``Sandbox``."""
    paths = database_paths(directory)
    return Sandbox(
        restaurants=list(read_rows(paths["restaurants"], "restaurants")),
        attractions=list(read_rows(paths["attractions"], "attractions")),
        accommodations=list(read_rows(paths["accommodations"], "accommodations")),
        flight_rows=list(read_rows(paths["flights"], "flights")),
        distances=list(read_distances(paths["distances"])),
        city_state=read_city_states(paths["cities"]),
        source=str(directory),
    )
