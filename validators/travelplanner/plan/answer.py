"""The answer block of Planner-R1's output format, written in one place: ``<answer>{JSON plan}</answer>``."""

from __future__ import annotations

from typing import Any

OPEN, CLOSE = "<answer>", "</answer>"


def extract_answer(text: Any) -> str | None:
    """The content of the last ``<answer>...</answer>`` block, or None (never raises).

    >>> extract_answer('I checked the flights. <answer>[{"days": 1}]</answer>')
    '[{"days": 1}]'
    >>> extract_answer("<answer>an unclosed block") is None
    True
    """
    if not isinstance(text, str):
        return None
    start = text.rfind(OPEN)
    if start < 0:
        return None
    end = text.find(CLOSE, start + len(OPEN))
    if end < 0:
        return None
    return text[start + len(OPEN) : end].strip()


def answer_text(plan: Any) -> str:
    """A structured plan (the Planner-R1 JSON format) as the answer block a model writes."""
    import json

    return f"{OPEN}{json.dumps(plan, ensure_ascii=False)}{CLOSE}"


def wrap_answer(text: str) -> str:
    """``text`` inside an answer block, unless it already holds one."""
    return text if OPEN in text else f"{OPEN}{text}{CLOSE}"
