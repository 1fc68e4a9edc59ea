"""TravelPlanner queries -> OpenRLHF's prompt dataset (JSONL), with Planner-R1's optional 180/45 re-split.

Imports neither OpenRLHF nor torch: it runs wherever the data is prepared.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from planshape.shaping.facade import Shaper, read_all_queries


def prepare_data(shaper: Shaper, queries: Sequence[str | Path], out: str | Path, val_out: str | Path | None = None,
                 val_size: int = 45, seed: int = 0) -> dict[str, dict[str, Any]]:
    """One JSONL row per query: ``prompt`` (the chat messages, tools described in the system prompt) for
    ``--data.input_key prompt --data.apply_chat_template``, and ``label`` (the record as JSON text) for
    ``--data.label_key label``; a JSON string column keeps HF datasets from unifying the records' schemas.
    With ``val_out``, Planner-R1's re-split: ``val_size`` queries go there (``--eval.dataset``)."""
    records = read_all_queries(queries)
    written = {}
    if val_out is not None:
        records, val = shaper.split_queries(records, val_size, seed)
        written["val"] = _write_prompts(shaper, val, Path(val_out))
    return {"train": _write_prompts(shaper, records, Path(out)), **written}


def _write_prompts(shaper: Shaper, records: list, out: Path) -> dict[str, Any]:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as handle:
        for record in records:
            row = {"prompt": shaper.messages(record, include_tools=True), "label": shaper.query_json(record)}
            handle.write(json.dumps(row) + "\n")
    return {"path": str(out), "rows": len(records)}
