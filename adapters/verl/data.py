"""TravelPlanner queries -> VERL parquet (``train.parquet``, ``val.parquet``) for the tool agent loop.

One row per query, in the layout of VERL's ``RLHFDataset``: ``prompt`` (the versioned Planner-R1 system prompt
and the query, from the facade), ``data_source``, ``agent_name`` (``tool_agent``), ``ability``,
``reward_model.ground_truth`` (the query's constraints as JSON text: parquet would otherwise unify the nested
dicts of all rows and add null keys) and ``extra_info`` (split, index, level, prompt version). The tools are
stateless over one sandbox per worker, so rows carry no per-row tool kwargs. Planner-R1 merged the official
45 train and 180 validation queries and re-split them 180/45 keeping the difficulty mix; ``prepare`` does
that (``Shaper.split_queries``: stratified by ``level``, seeded).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DATA_SOURCE = "travelplanner"
AGENT_NAME = "tool_agent"
def to_row(shaper: Any, record: Mapping[str, Any], split: str, index: int) -> dict[str, Any]:
    messages = shaper.messages(record)
    return {
        "data_source": DATA_SOURCE,
        "agent_name": AGENT_NAME,
        "prompt": [{"role": m["role"], "content": m["content"]} for m in messages],
        "ability": "travel_planning",
        "reward_model": {"style": "rule", "ground_truth": shaper.query_json(record)},
        "extra_info": {"split": split, "index": index, "level": str(record.get("level", "")),
                       "prompt_version": str(shaper.prompt_version)},
    }


def prepare_data(shaper: Any, queries: Sequence[str | Path], out_dir: str | Path, val_size: int = 45,
                 seed: int = 0) -> dict[str, dict[str, Any]]:
    """Read the query files (each row validated by the facade; a bad row raises with its number and reason),
    split, and write the two parquet files. Returns what was written."""
    import pandas as pd

    records: list[Mapping[str, Any]] = []
    for path in queries:
        records.extend(shaper.read_queries(path))
    train, val = shaper.split_queries(records, val_size, seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for split, rows in (("train", train), ("val", val)):
        path = out / f"{split}.parquet"
        pd.DataFrame([to_row(shaper, r, split, i) for i, r in enumerate(rows)]).to_parquet(path)
        written[split] = {"path": str(path), "rows": len(rows)}
    return written
