"""TravelPlanner queries -> VERL parquet (``train.parquet``, ``val.parquet``) for the tool agent loop.

One row per query, in the layout of VERL's ``RLHFDataset``: ``prompt`` (the versioned Planner-R1 system prompt
and the query, from the facade), ``data_source``, ``agent_name`` (``tool_agent``), ``ability``,
``reward_model.ground_truth`` (the query's constraints as JSON text: parquet would otherwise unify the nested
dicts of all rows and add null keys) and ``extra_info`` (split, index, level, prompt version). The tools are
stateless over one sandbox per worker, so rows carry no per-row tool kwargs. Planner-R1 merged the official
45 train and 180 validation queries and re-split them 180/45 keeping the difficulty mix; ``prepare_data`` does
that (``split_queries``: stratified by ``level``, seeded).
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
    renamed,
)

DATA_SOURCE = "travelplanner"
AGENT_NAME = "tool_agent"


def to_row(shaper: Shaper, record: Mapping[str, Any], split: str, index: int) -> dict[str, Any]:
    messages = shaper.messages(record)
    return {
        "data_source": DATA_SOURCE,
        "agent_name": AGENT_NAME,
        "prompt": [{"role": m["role"], "content": m["content"]} for m in messages],
        "ability": "travel_planning",
        "reward_model": {"style": "rule", "ground_truth": query_json(record)},
        "extra_info": {"split": split, "index": index, "level": str(record.get("level", "")),
                       "prompt_version": str(shaper.prompt_version)},
    }


@renamed(out_dir="out")
def prepare_data(shaper: Shaper, queries: Sequence[str | Path], out: str | Path, val_out: str | Path | None = None,
                 val_size: int = PLANNER_R1_VAL_SIZE, seed: int = 0, limit: int | None = None) -> dict[str, Written]:
    """Read the query files (each row validated by the facade; a bad row raises with its number and reason; the
    first ``limit`` when given), split, and write ``out/train.parquet`` and the validation rows (``val_out``, by
    default ``out/val.parquet``). Returns what was written."""
    try:
        import pandas as pd
        import pyarrow  # noqa: F401 - pandas' parquet engine
    except ImportError as exc:
        raise ValueError(f"prepare-data writes parquet with pandas and pyarrow ({exc}); both come with verl: "
                         "pip install 'verl[verl-core]==0.9.1'") from None
    folder = Path(out)
    written: dict[str, Written] = {}
    for split, records, path in query_splits(queries, folder / "train.parquet", val_out or folder / "val.parquet",
                                             val_size, seed, limit):
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame([to_row(shaper, r, split, i) for i, r in enumerate(records)]).to_parquet(path)
        written[split] = {"path": str(path), "rows": len(records)}
    return written


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import PrepareData

    _contract: PrepareData = prepare_data
