"""A TravelPlanner query (one row of the Hugging Face ``osunlp/TravelPlanner`` dataset).

Structured CSV cells hold Python-literal text; upstream turns them back with ``eval``. Here they are
read with ``ast.literal_eval``, which accepts literals only.
"""

from __future__ import annotations

import ast
import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .jsonl import kind, read_jsonl

csv.field_size_limit(1 << 30)
MAX_DAYS = 30  # the plan schema's limit: a longer trip could never be planned

def literal(value: Any) -> Any:
    """Parse a Python-literal cell (``"['2022-03-16']"``); non-strings pass through unchanged."""
    if isinstance(value, str):
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, RecursionError, MemoryError) as exc:  # deep nesting: the last two
            raise ValueError(f"not a Python literal: {value[:80]!r}") from exc
    return value


# The values a query's local constraints take (notes §5), with what each means in the database. Upstream
# passes every plan on a value it does not know ("no flights", "Entire home/apt"), so one is refused here.
HOUSE_RULE_TEXT = {
    "smoking": "No smoking",
    "parties": "No parties",
    "children under 10": "No children under 10",
    "visitors": "No visitors",
    "pets": "No pets",
}
ROOM_TYPE_TEXT = {"shared room": "Shared room", "private room": "Private room", "entire room": "Entire home/apt"}
ROOM_TYPES = ("not shared room", *ROOM_TYPE_TEXT)
TRANSPORT_RULES = ("no flight", "no self-driving")


def _known(value: str | None, allowed: Any, what: str) -> str | None:
    if value is not None and value not in allowed:
        raise ValueError(f"unknown {what} {value!r}: a plan could never fail it; use one of {sorted(allowed)}")
    return value


class LocalConstraint(BaseModel):
    """The query's hard constraints besides the budget; None means "not asked for"."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    house_rule: str | None = Field(default=None, alias="house rule")
    cuisine: list[str] | None = None
    room_type: str | None = Field(default=None, alias="room type")
    transportation: str | None = None

    @field_validator("house_rule")
    @classmethod
    def _house_rule(cls, value: str | None) -> str | None:
        return _known(value, HOUSE_RULE_TEXT, "house rule")

    @field_validator("room_type")
    @classmethod
    def _room_type(cls, value: str | None) -> str | None:
        return _known(value, ROOM_TYPES, "room type")

    @field_validator("transportation")
    @classmethod
    def _transportation(cls, value: str | None) -> str | None:
        return _known(value, TRANSPORT_RULES, "transportation rule")

    def count(self) -> int:
        """How many local constraints are set (upstream counts ``value is not None``)."""
        return sum(v is not None for v in (self.house_rule, self.cuisine, self.room_type, self.transportation))


class Query(BaseModel):
    """What a plan is checked against. Configuration-grade input: it is validated, not guarded."""

    model_config = ConfigDict(frozen=True)

    org: str
    dest: str
    days: int = Field(ge=1, le=MAX_DAYS)
    visiting_city_number: int = Field(ge=1)
    date: list[str] = []
    people_number: int = Field(default=1, ge=1)
    local_constraint: LocalConstraint = LocalConstraint()
    budget: float = Field(gt=0, allow_inf_nan=False)  # NaN or inf would make every plan fit the budget
    query: str = ""
    level: str = ""

    @field_validator("date", mode="before")
    @classmethod
    def _date(cls, value: Any) -> Any:
        return literal(value)

    @field_validator("local_constraint", mode="before")
    @classmethod
    def _local(cls, value: Any) -> Any:
        return literal(value) if value is not None else {}

    @model_validator(mode="after")
    def _a_date_per_day(self) -> Query:
        """Strict checks each day's flight against that day's date: a partial list would leave later days'
        flights unchecked (an empty list means the query gives no dates at all, docs/modes.md row 7)."""
        if self.date and len(self.date) != self.days:
            raise ValueError(f"date lists {len(self.date)} dates for a {self.days}-day trip: give one per day")
        return self

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Query:
        """Build from a dataset row (CSV strings or JSON values); unknown columns are ignored."""
        items = getattr(record, "items", None)  # a Mapping, or a pandas row
        if isinstance(record, (str, bytes)) or not callable(items):
            raise ValueError(f"a query record must be a mapping of column -> value, got {type(record).__name__}")
        keys = cls.model_fields.keys()
        return cls.model_validate({k: v for k, v in items() if k in keys})


HF_DATASET = "osunlp/TravelPlanner"


def missing_queries(path: str | Path) -> str:
    """One line naming a query file that is not there and where TravelPlanner's splits come from."""
    return (f"{path}: no such query file; TravelPlanner's train, validation and test queries are the Hugging Face "
            f"dataset {HF_DATASET} (save a split as CSV, e.g. datasets.load_dataset({HF_DATASET!r}, 'validation')"
            "['validation'].to_csv('validation.csv')), or give 'sample' for the bundled sample world")


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a dataset file: CSV (Hugging Face layout), JSONL, or a JSON list.

    A malformed file (bad JSON, a line that is not an object, deep nesting, bad UTF-8) raises ValueError
    naming the file and line; a UTF-8 byte-order mark is accepted.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(missing_queries(path))
    if path.suffix == ".csv":
        with open(path, newline="", encoding="utf-8-sig") as handle:
            return list(csv.DictReader(handle))
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"{path}: not a JSON list of records ({str(exc)[:120]})") from None
        rows = data if isinstance(data, list) else [data]
        where = [f"record {number}" for number in range(1, len(rows) + 1)]
    else:
        lines = read_jsonl(path)
        for line in lines:
            if line.error is not None:
                raise ValueError(f"{path}: line {line.number}: {line.error}")
        rows, where = [line.value for line in lines], [f"line {line.number}" for line in lines]
    for row, place in zip(rows, where, strict=True):
        if not isinstance(row, dict):
            raise ValueError(f"{path}: {place}: a query record is a JSON object, not {kind(row)}")
    return rows


def read_query_rows(path: str | Path) -> list[tuple[dict[str, Any], Query]]:
    """Every row of a dataset file with its query; a row that is not a valid query fails with its number."""
    rows = []
    for number, record in enumerate(read_records(path), start=1):
        try:
            rows.append((record, Query.from_record(record)))
        except ValueError as exc:
            raise ValueError(f"{path}: row {number}: {exc}") from None
    return rows


def load_queries(path: str | Path) -> list[Query]:
    """Read every query of a dataset file; a bad row fails with its row number."""
    return [query for _, query in read_query_rows(path)]


def gold_plan(record: Mapping[str, Any]) -> list:
    """The annotated (gold) plan of a train row: ``annotated_plan`` is ``[query_dict, plan_list]``."""
    return literal(record["annotated_plan"])[1]
