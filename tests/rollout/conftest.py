"""Fixtures of the rollout tests: the sample world's queries with unique texts, and the toolbox over it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from planshape.validators.travelplanner.agent.tools import ToolBox
from planshape.validators.travelplanner.sample import sample_database, sample_plans, sample_queries
from planshape.validators.travelplanner.store.sqlite import open_store

pytest.importorskip("aiohttp", reason="the rollout needs the serve extra (aiohttp)")


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture()
def sample_world(tmp_path: Path) -> tuple[Path, list[dict], list]:
    """(queries file, records, the sample plans): the sample queries, each text made unique (the scripted
    model tells queries apart by their text, as a real one sees nothing else)."""
    records = [json.loads(line) for line in sample_queries().read_text().splitlines()]
    for i, record in enumerate(records):
        record["query"] = f"{record['query']} [query {i}]"
    plans = [json.loads(line)["plan"] for line in sample_plans().read_text().splitlines()]
    return write_jsonl(tmp_path / "queries.jsonl", records), records, plans


@pytest.fixture(scope="session")
def toolbox() -> ToolBox:
    return ToolBox(open_store(str(sample_database())))
