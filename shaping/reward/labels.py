"""A trainer's query label, read once for every path: a TravelPlanner record, its JSON text, or a ``Query``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from planshape.validators.travelplanner.query import Query

QueryLike = Query | Mapping[str, Any] | str


def as_query(query: QueryLike | bytes) -> Query | Mapping[str, Any]:
    """A trainer-side query (a dataset label): its JSON text is parsed here, nesting bounded; a bad one raises
    ``ValueError`` saying what it must be."""
    if isinstance(query, (bytes, bytearray)):
        query = bytes(query).decode("utf-8", "replace")
    if isinstance(query, str):
        try:
            query = json.loads(query)
        except RecursionError:
            raise ValueError("query text nests too deeply to be a TravelPlanner record") from None
        except ValueError as exc:
            raise ValueError(f"query text is not JSON ({exc})") from None
    if not isinstance(query, (Query, Mapping)):
        raise ValueError(f"a query is a TravelPlanner record (mapping), its JSON text or a Query, "
                         f"got {type(query).__name__}")
    return query


def parse_query(query: Query | Mapping[str, Any]) -> Query:
    """A record as a ``Query`` (``ValueError`` naming what is wrong with it)."""
    if isinstance(query, Query):
        return query
    try:
        return Query.from_record(query)
    except RecursionError:
        raise ValueError("the query record nests too deeply to be a TravelPlanner record") from None


def read_query(label: QueryLike | bytes) -> Query:
    """A trainer's query label (a record, its JSON text, or a ``Query``) read as the reward reads it;
    ``ValueError`` saying what it must be (what a preflight runs on a data file's first row)."""
    if isinstance(label, str):
        return _read_text(label)
    return parse_query(as_query(label))


@lru_cache(maxsize=4096)
def _read_text(label: str) -> Query:
    """A label's JSON text read once: every sample of a GRPO group carries the same one, and reading it (JSON,
    the record's validation, its literal cells) was about a fifth of scoring an answer that fails early
    (``benchmarks/bench_serve.py``'s fuzzed outputs). A ``Query`` is frozen, so the samples share it; a label that
    cannot be read raises each time."""
    return parse_query(as_query(label))
