"""TravelPlanner records (HF CSV / JSONL) -> the dataset ``GRPOTrainer`` trains on.

Each row holds ``prompt`` (conversational: the facade's versioned Planner-R1 system prompt and the query,
``shaper.messages``) and ``planshape_query`` (the whole record as JSON text, which the reward reads back).
One JSON column keeps the Arrow schema fixed whatever the record's fields and types; TRL passes every column
except ``prompt`` to the reward function, so nothing else is needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planshape.shaping.facade import (
    PLANNER_R1_VAL_SIZE,
    Shaper,
    Written,
    query_json,
    query_splits,
    read_queries,
    write_jsonl,
)

from .reward import QUERY_COLUMN


def rows(records: Sequence[Mapping[str, Any]], shaper: Shaper) -> list[dict[str, Any]]:
    """The dataset rows of ``records``; a record the prompt cannot be built from fails naming its number."""
    out = []
    for number, record in enumerate(records, start=1):
        try:
            prompt = shaper.messages(record)
        except ValueError as exc:
            raise ValueError(f"record {number}: {exc}") from None
        out.append({"prompt": prompt, QUERY_COLUMN: query_json(record)})
    return out


def to_dataset(records: Sequence[Mapping[str, Any]], shaper: Shaper):
    """A ``datasets.Dataset`` of ``rows(records, shaper)``."""
    from datasets import Dataset

    return Dataset.from_list(rows(records, shaper))


def load_queries(path: str | Path, shaper: Shaper, limit: int | None = None):
    """The dataset of a TravelPlanner CSV/JSONL file (validated by the facade; ``"sample"``: the sample
    world's queries), optionally its first ``limit`` rows."""
    records = read_queries(path)
    return to_dataset(records[:limit] if limit else records, shaper)


def prepare_data(shaper: Shaper, queries: Sequence[str | Path], out: str | Path, val_out: str | Path | None = None,
                 val_size: int = PLANNER_R1_VAL_SIZE, seed: int = 0, limit: int | None = None) -> dict[str, Written]:
    """The query files' rows as JSONL at ``out`` (the first ``limit`` queries, when given); with ``val_out``,
    Planner-R1's re-split first, its ``val_size`` validation rows there."""
    return {split: write_jsonl(rows(records, shaper), path)
            for split, records, path in query_splits(queries, out, val_out, val_size, seed, limit)}


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import PrepareData

    _contract: PrepareData = prepare_data
