"""The upstream evaluator's lookup approach, as a baseline: every lookup is a pandas boolean scan over a
whole table (``df[df.Name.astype(str).str.contains(re.escape(name)) & (df.City == city)]``).

It implements the same ``SandboxStore`` protocol as planshape's indexed sandbox, so the very same check
code runs on both: the benchmark then measures lookups only, and the verdicts must be identical.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from planshape.validators.travelplanner.store.database import FILES, read_city_states
from planshape.validators.travelplanner.store.sandbox import Accommodation, Attraction, Distance, Flight, Restaurant

COLUMNS = {
    "restaurants": (Restaurant, "Name", "City", ["Name", "City", "Cuisines", "Average Cost", "Aggregate Rating"]),
    "attractions": (Attraction, "Name", "City", ["Name", "Latitude", "Longitude", "Address", "Phone", "Website",
                                                 "City"]),
    "accommodations": (Accommodation, "NAME", "city", ["NAME", "room type", "price", "minimum nights",
                                                       "review rate number", "house_rules", "maximum occupancy",
                                                       "city"]),
}
FLIGHT_COLUMNS = ["Flight Number", "Price", "DepTime", "ArrTime", "ActualElapsedTime", "FlightDate",
                  "OriginCityName", "DestCityName", "Distance"]


class PandasStore:
    """Upstream-style lookups: full-table pandas scans, first row wins."""

    source = "pandas"
    memoise = False  # upstream scans the table again for every lookup, even of an item seen before

    def __init__(self, directory: str | Path):
        root = Path(directory)
        self.tables = {k: pd.read_csv(root / FILES[k]).dropna()[cols] for k, (_, _, _, cols) in COLUMNS.items()}
        self.flights_df = pd.read_csv(root / FILES["flights"]).dropna()[FLIGHT_COLUMNS]
        self.distance_df = pd.read_csv(root / FILES["distances"])
        self.city_state = read_city_states(root / FILES["cities"])

    def _rows(self, table: str, frame: pd.DataFrame) -> list:
        row_type = COLUMNS[table][0]
        return [row_type(*values) for values in frame.itertuples(index=False, name=None)]

    def places(self, table: str, name: str, city: str, exact: bool = False) -> list:
        _, name_col, city_col, _ = COLUMNS[table]
        df = self.tables[table]
        if exact:
            key = " ".join(name.split())  # spacing aside, as the stores compare names
            hit = df[(df[name_col].astype(str).str.split().str.join(" ") == key) & (df[city_col] == city)]
        else:
            hit = df[(df[name_col].astype(str).str.contains(re.escape(name))) & (df[city_col] == city)]
        return self._rows(table, hit)

    def in_city(self, table: str, city: str) -> list:
        df = self.tables[table]
        return self._rows(table, df[df[COLUMNS[table][2]] == city])

    def _flight(self, frame: pd.DataFrame) -> Flight | None:
        return Flight(*next(frame.itertuples(index=False, name=None))) if len(frame) else None

    def flight_on_route(self, number, origin, destination, date=None):
        df = self.flights_df
        hit = df[(df["Flight Number"] == number) & (df["OriginCityName"] == origin)
                 & (df["DestCityName"] == destination)]
        if date is not None:
            hit = hit[hit["FlightDate"] == date]
        return self._flight(hit)

    def first_flight(self, number):
        return self._flight(self.flights_df[self.flights_df["Flight Number"] == number])

    def flights(self, origin, destination, date):
        df = self.flights_df
        hit = df[(df["OriginCityName"] == origin) & (df["DestCityName"] == destination) & (df["FlightDate"] == date)]
        return [Flight(*v) for v in hit.itertuples(index=False, name=None)]

    def distance(self, origin, destination):
        df = self.distance_df
        hit = df[(df["origin"] == origin) & (df["destination"] == destination)]
        if not len(hit):
            return None
        row = hit.iloc[0]
        cell = lambda v: None if pd.isna(v) else v  # noqa: E731
        return Distance(origin, destination, cell(row["duration"]), cell(row["distance"]))
