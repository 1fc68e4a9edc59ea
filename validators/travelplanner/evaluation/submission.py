"""Read a submission file and bring every plan to the upstream day-dict form.

A line may hold ``{"plan": ...}`` (upstream's format), or the plan itself: an upstream plan (day dicts of
strings), a structured plan (schema-gated), or the answer text. A structured plan or answer that fails
the schema gate counts as not delivered, and so does a line that cannot be read (not UTF-8, not JSON,
nested too deeply, a bare number) or an object without a ``plan`` key (``{"answer": ...}``): each with its
reason, never an exception. Those lines are also marked ``unreadable``: the report says so per line and counts
them, since a file of them scores 0% for a reason that is not the plans'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..jsonl import kind, read_jsonl
from ..plan.answer import OPEN, extract_answer
from ..plan.formats import gate


@dataclass(frozen=True)
class Submitted:
    plan: Any  # upstream day dicts, or None when nothing checkable was delivered
    note: str = ""
    unreadable: bool = False  # the line itself could not be read as a submission line (note says why)


def is_structured(plan: Any) -> bool:
    """A list whose first non-empty day has ``city`` and no ``current_city``."""
    if not isinstance(plan, list):
        return False
    first = next((d for d in plan if d), None)
    return isinstance(first, dict) and "city" in first and "current_city" not in first


Extract = Callable[[str], "str | None"]


def normalise(plan: Any, extract: Extract = extract_answer) -> Submitted:
    """Upstream plans pass through as they are; structured plans and answer text go through the gate. Text is
    read by ``extract`` as the reward reads it (the built-in: the last ``<answer>`` block); text with no answer
    block is taken as the plan itself, unless it opens a block it never closes."""
    if isinstance(plan, str):
        try:
            block = extract(plan)
        except Exception as exc:  # noqa: BLE001 - a plugin's extractor failing on model text is a plan not delivered
            return Submitted(None, f"no answer: the answer extractor failed ({type(exc).__name__})")
        if block is not None:
            plan = block
        elif OPEN in plan:
            return Submitted(None, "no answer: no complete <answer>...</answer> block")
    if isinstance(plan, (str, bytes)) or is_structured(plan):
        result = gate(plan)
        return Submitted(result.plan, "" if result.ok else f"schema: {result.reason}")
    return Submitted(plan)


def read_submission(path: str | Path, extract: Extract = extract_answer) -> list[Submitted]:
    """One entry per non-blank line, paired with queries by line order (upstream ignores ``idx``); answer text is
    read by ``extract`` (``normalise``)."""
    out = []
    for line in read_jsonl(path):
        record = line.value
        if line.error:
            out.append(Submitted(None, f"line {line.number}: {line.error}", unreadable=True))
        elif isinstance(record, dict) and "plan" not in record:
            keys = ", ".join(sorted(map(str, record))[:5]) or "none"
            out.append(Submitted(None, f"line {line.number}: an object without a 'plan' key (keys: {keys}); a "
                                       "submission line is {\"idx\", \"query\", \"plan\"}", unreadable=True))
        elif isinstance(record, dict):
            out.append(normalise(record.get("plan"), extract))
        elif record is None or isinstance(record, (list, str)):
            out.append(normalise(record, extract))
        else:
            out.append(Submitted(None, f"line {line.number}: {kind(record)}, not an object with a 'plan'",
                                 unreadable=True))
    return out
