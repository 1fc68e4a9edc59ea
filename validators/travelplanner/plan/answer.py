"""The answer block of Planner-R1's output format, written in one place: ``<answer>{JSON plan}</answer>``."""

from __future__ import annotations

from typing import Any

OPEN, CLOSE = "<answer>", "</answer>"


def extract_answer(text: Any) -> str | None:
    """The content of the last complete ``<answer>...</answer>`` block, or None (never raises).

    A block is an opening tag and the first closing tag after it with no opening tag between (with nested tags,
    the innermost). An opening tag after the last block (prose that names the tag, a second answer cut off) does
    not hide the block. Linear: at most two backward and two forward scans.

    >>> extract_answer('I checked the flights. <answer>[{"days": 1}]</answer>')
    '[{"days": 1}]'
    >>> extract_answer("<answer>an unclosed block") is None
    True
    >>> extract_answer("<answer>[1]</answer> The <answer> block above is my plan.")
    '[1]'
    """
    if not isinstance(text, str):
        return None
    start = text.rfind(OPEN)
    end = text.find(CLOSE, start + len(OPEN)) if start >= 0 else -1
    if start >= 0 and end < 0:  # the last opening is never closed: the last block ends before it
        close = text.rfind(CLOSE, 0, start)
        start = text.rfind(OPEN, 0, close) if close >= 0 else -1
        end = text.find(CLOSE, start + len(OPEN)) if start >= 0 else -1
    return text[start + len(OPEN) : end].strip() if end >= 0 else None


def answer_text(plan: Any) -> str:
    """A structured plan (the Planner-R1 JSON format) as the answer block a model writes."""
    import json

    return f"{OPEN}{json.dumps(plan, ensure_ascii=False)}{CLOSE}"


def wrap_answer(text: str) -> str:
    """``text`` inside an answer block, unless it already holds one."""
    return text if OPEN in text else f"{OPEN}{text}{CLOSE}"
