"""Queries as trainers carry them (a dataset label: a record, its JSON text, or a ``Query``), query files, gold
answers, and Planner-R1's 180/45 re-split: the data side every adapter's ``prepare-data`` and reward share."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from planshape.validators.travelplanner import sample as sample_world
from planshape.validators.travelplanner.query import Query, gold_plan, read_query_rows

from ..config import SAMPLE_WORLD
from ..splits import PLANNER_R1_VAL_SIZE
from ..splits import split_queries as _split_queries


class Written(TypedDict):
    """One file a ``prepare-data`` wrote: where, and how many rows."""

    path: str
    rows: int


def read_queries(path: str | Path) -> list[dict[str, Any]]:
    """TravelPlanner records (HF CSV/JSONL/JSON); a row that is not a valid query fails with its number.
    ``"sample"``: the bundled sample world's queries (planned against ``database: sample``)."""
    source = sample_world.sample_queries() if str(path) == SAMPLE_WORLD else path
    return [record for record, _ in read_query_rows(source)]


def read_all_queries(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """The records of every query file, in order (``read_queries`` of each)."""
    return [record for path in paths for record in read_queries(path)]


def gold_answer(record: Mapping[str, Any]) -> str:
    """The gold plan of a record with one (TravelPlanner's train split: ``annotated_plan``), converted from the
    upstream string format and written as a model's answer: the text that scores as the gold plan. A
    ``ValueError`` names a record without one."""
    from planshape.validators.travelplanner import answer_text, from_upstream

    if not record.get("annotated_plan"):
        raise ValueError("the record has no annotated_plan (only TravelPlanner's train split holds gold plans)")
    return answer_text(from_upstream(gold_plan(record)))


def query_json(record: Mapping[str, Any]) -> str:
    """A query as the reward reads it back from a dataset row (every trainer's label column): the record's query
    fields as JSON text; the plan and reference information stay out (large, and never read)."""
    return json.dumps({k: record[k] for k in Query.model_fields if k in record}, default=str)


def split_queries(records: Sequence[Mapping[str, Any]], val_size: int = PLANNER_R1_VAL_SIZE,
                  seed: int = 0) -> tuple[list, list]:
    """(train, validation) records: Planner-R1's seeded re-split, stratified by level (``splits.py``)."""
    return _split_queries(records, val_size, seed)


def query_splits(queries: Sequence[str | Path], out: str | Path, val_out: str | Path | None = None,
                 val_size: int = PLANNER_R1_VAL_SIZE, seed: int = 0, limit: int | None = None
                 ) -> list[tuple[str, list[dict[str, Any]], Path]]:
    """What a ``prepare-data`` writes where, as ``(split, records, path)``: the records of the query files (the
    first ``limit`` when given) all to ``out``, or, with ``val_out``, Planner-R1's re-split: ``train`` to ``out``,
    ``val`` to ``val_out``."""
    records = read_all_queries(queries)
    records = records[:limit] if limit else records
    if val_out is None:
        return [("train", records, Path(out))]
    train, val = split_queries(records, val_size, seed)
    return [("train", train, Path(out)), ("val", val, Path(val_out))]


def write_jsonl(rows: Sequence[Mapping[str, Any]], path: Path) -> Written:
    """Dataset rows as JSON Lines at ``path`` (its folder made), and what was written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return {"path": str(path), "rows": len(rows)}
