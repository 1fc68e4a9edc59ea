"""The queries of a rollout: every row must have the text to prompt with; rows with the fields scoring needs
(train, validation) are also read as ``Query`` objects, and rows without them (the test split, whose
constraints are withheld) are rolled out unscored, for the leaderboard."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planshape.shaping.config import SAMPLE_WORLD
from planshape.validators.travelplanner import sample
from planshape.validators.travelplanner.evaluation.metrics import SPLIT_SIZE
from planshape.validators.travelplanner.query import Query, read_query_rows, read_records
from planshape.validators.travelplanner.store.sandbox import SandboxStore

from .run_dir import file_digest

SCORING_FIELDS = ("budget", "people_number", "local_constraint")  # what the test split withholds


@dataclass(frozen=True)
class Inputs:
    path: Path
    digest: str
    records: list[dict[str, Any]]
    queries: list[Query] | None  # None: not scorable here (the test split)
    split: str | None


def read_inputs(path: str | Path, split: str | None) -> Inputs:
    """Read and check the queries file before any request; a bad row fails naming its number."""
    path = sample.sample_queries() if str(path) == SAMPLE_WORLD else Path(path)
    records = read_records(path)
    if not records:
        raise ValueError(f"{path}: no queries")
    for number, record in enumerate(records, start=1):
        if not isinstance(record.get("query"), str) or not record["query"].strip():
            raise ValueError(f"{path}: row {number} has no 'query' text to prompt with")
    if split in SPLIT_SIZE and split != "test" and len(records) != SPLIT_SIZE[split]:
        raise ValueError(f"--split {split}: that split has {SPLIT_SIZE[split]} queries, {path} has {len(records)}; "
                         "drop --split to score a subset")
    withheld = all(not any(k in r for k in SCORING_FIELDS) for r in records)
    queries = None if split == "test" or withheld else [q for _, q in read_query_rows(path)]
    return Inputs(path, file_digest(path), records, queries, "test" if queries is None else split)


def check_world(inputs: Inputs, store: SandboxStore, world: str) -> None:
    """Refuse queries the sandbox cannot answer: where it lacks a query's origin or destination (a city, or the
    state of a multi-city trip), every tool call would answer ``no city named ...`` and every plan fail. Named:
    the first such query's places and how many queries have them (a row without ``org``/``dest`` is not checked)."""
    states = set(store.city_state.values())
    lacking = []
    for number, record in enumerate(inputs.records, start=1):
        places = [(record.get("org"), False), (record.get("dest"), True)]
        missing = [p for p, state_too in places if isinstance(p, str) and p and p not in store.city_state
                   and not (state_too and p in states)]
        if missing:
            lacking.append((number, missing))
    if lacking:
        number, missing = lacking[0]
        raise ValueError(f"{world} does not know {', '.join(repr(p) for p in missing)} (row {number} of "
                         f"{inputs.path.name}); {len(lacking)} of {len(inputs.records)} queries name places it lacks: "
                         "pass --database with the TravelPlanner database these queries were written for")
