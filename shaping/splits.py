"""Planner-R1's re-split of TravelPlanner: merge the official 45 train and 180 validation queries and split
them 180/45 again, keeping the difficulty mix. Offered by every adapter's data step (the facade's ``split_queries``).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

PLANNER_R1_VAL_SIZE = 45


def split_queries(records: Sequence[Mapping[str, Any]], val_size: int = PLANNER_R1_VAL_SIZE,
                  seed: int = 0) -> tuple[list, list]:
    """(train, validation): a seeded split with ``val_size`` validation records, drawn per ``level`` in
    proportion (largest remainder), so each difficulty keeps its share."""
    if not 0 <= val_size <= len(records):
        raise ValueError(f"val_size {val_size} is outside 0..{len(records)} (the number of usable queries)")
    if records and val_size == len(records):
        raise ValueError(f"--val-size {val_size} takes all {len(records)} queries for validation and leaves no "
                         "training rows: pass a smaller --val-size (--val-size 0: no validation split), or more "
                         "query files (Planner-R1 merged train.csv and validation.csv, 225 queries, then split "
                         "180/45)")
    rng = random.Random(seed)
    by_level: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        by_level[str(r.get("level", ""))].append(i)
    quota = {lvl: val_size * len(ix) / len(records) for lvl, ix in by_level.items()} if records else {}
    take = {lvl: int(q) for lvl, q in quota.items()}
    for lvl in sorted(quota, key=lambda k: (take[k] - quota[k], k))[: val_size - sum(take.values())]:
        take[lvl] += 1
    val: set[int] = set()
    for lvl in sorted(by_level):
        ix = by_level[lvl][:]
        rng.shuffle(ix)
        val.update(ix[: take[lvl]])
    order = list(range(len(records)))
    rng.shuffle(order)
    return [records[i] for i in order if i not in val], [records[i] for i in order if i in val]
