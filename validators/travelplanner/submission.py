"""Read a submission file and bring every plan to the upstream day-dict form.

A line may hold an upstream plan (day dicts of strings), a structured plan (schema-gated), or the
answer text itself. A structured plan or answer that fails the schema gate counts as not delivered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .plan_format import gate


@dataclass(frozen=True)
class Submitted:
    plan: Any  # upstream day dicts, or None when nothing checkable was delivered
    note: str = ""


def is_structured(plan: Any) -> bool:
    """A list whose first non-empty day has ``city`` and no ``current_city``."""
    if not isinstance(plan, list):
        return False
    first = next((d for d in plan if d), None)
    return isinstance(first, dict) and "city" in first and "current_city" not in first


def normalise(plan: Any) -> Submitted:
    """Upstream plans pass through as they are; structured plans and answer text go through the gate."""
    if isinstance(plan, (str, bytes)) or is_structured(plan):
        result = gate(plan)
        return Submitted(result.plan, "" if result.ok else f"schema: {result.reason}")
    return Submitted(plan)


def read_submission(path: str | Path) -> list[Submitted]:
    """One entry per line, paired with queries by line order (upstream ignores ``idx``)."""
    out = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            out.append(Submitted(None, f"line {number} is not JSON: {str(exc)[:80]}"))
            continue
        out.append(normalise(record.get("plan") if isinstance(record, dict) else record))
    return out
