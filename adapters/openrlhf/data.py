"""TravelPlanner queries -> OpenRLHF's prompt dataset (JSONL), with Planner-R1's optional 180/45 re-split.

Imports neither OpenRLHF nor torch: it runs wherever the data is prepared.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from planshape.shaping.facade import Shaper, data_shaper, read_all_queries


def prepare_data(queries: Sequence[Path], out: Path, config: str, val_out: Path | None = None, val_size: int = 45,
                 seed: int = 0) -> int:
    """One JSONL row per query: ``prompt`` (the chat messages, tools described in the system prompt) for
    ``--data.input_key prompt --data.apply_chat_template``, and ``label`` (the record as JSON text) for
    ``--data.label_key label``; a JSON string column keeps HF datasets from unifying the records' schemas.
    With ``val_out``, Planner-R1's re-split: ``val_size`` queries go there (``--eval.dataset``)."""
    shaper = data_shaper(config)
    records = read_all_queries(queries)
    if val_out is not None:
        records, val = shaper.split_queries(records, val_size, seed)
        _write_prompts(shaper, val, val_out)
    _write_prompts(shaper, records, out)
    return len(records)


def _write_prompts(shaper: Shaper, records: list, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as handle:
        for record in records:
            row = {"prompt": shaper.messages(record, include_tools=True), "label": shaper.query_json(record)}
            handle.write(json.dumps(row) + "\n")
