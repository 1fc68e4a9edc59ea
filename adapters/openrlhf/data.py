"""TravelPlanner queries -> OpenRLHF's prompt dataset (JSONL), with Planner-R1's optional 180/45 re-split.

Imports neither OpenRLHF nor torch: it runs wherever the data is prepared.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from planshape.shaping.facade import PLANNER_R1_VAL_SIZE, Shaper, Written, query_json, query_splits, write_jsonl


def prepare_data(shaper: Shaper, queries: Sequence[str | Path], out: str | Path, val_out: str | Path | None = None,
                 val_size: int = PLANNER_R1_VAL_SIZE, seed: int = 0, limit: int | None = None) -> dict[str, Written]:
    """One JSONL row per query: ``prompt`` (the chat messages, tools described in the system prompt) for
    ``--data.input_key prompt --data.apply_chat_template``, and ``label`` (the record as JSON text) for
    ``--data.label_key label``; a JSON string column keeps HF datasets from unifying the records' schemas.
    With ``val_out``, Planner-R1's re-split: ``val_size`` queries go there (``--eval.dataset``)."""
    return {split: write_jsonl([{"prompt": shaper.messages(r, include_tools=True), "label": query_json(r)}
                                for r in records], path)
            for split, records, path in query_splits(queries, out, val_out, val_size, seed, limit)}


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import PrepareData

    _contract: PrepareData = prepare_data
