"""Size and type limits of a parsed JSON value, checked in one bounded walk before any schema runs.

Why: a schema validator enumerates (and ranks) every error, so a degenerate answer at the size cap
(``[{},{},...]``, ``[0,0,...]``) costs seconds, and Python numbers parsed from JSON may overflow
(``1e400`` is ``inf``, a 400-digit integer has no float). The walk stops at the first violation in
document order, never recurses (any nesting depth is safe), and never looks inside a container that is
already too large, so its cost is bounded by the limits, not by the input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JsonLimits:
    """``max_items[d]``: the longest list at container depth d (the last entry holds for deeper lists)."""

    max_depth: int  # containers nested at most this deep (the top-level value is depth 1)
    max_items: tuple[int, ...]
    max_keys: int
    max_text: int
    max_number: float


def is_unicode(text: str) -> bool:
    """False for text holding lone surrogates (JSON's ``"\\ud800"``): it cannot be encoded, so a database
    lookup, a log line or a tokenizer would fail on it later."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _scalar_problem(value: Any, limits: JsonLimits) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        if len(value) > limits.max_text:
            return f"text of {len(value)} characters, over the limit of {limits.max_text}"
        return None if is_unicode(value) else "text holds a lone surrogate (not valid Unicode)"
    if isinstance(value, int):
        if abs(value) > limits.max_number:  # compares exactly, however many digits
            return f"a number over {limits.max_number:g} in magnitude"
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return f"{value} is not a finite number (too large for a float)"
        return f"a number over {limits.max_number:g} in magnitude" if abs(value) > limits.max_number else None
    return f"{type(value).__name__} is not a JSON type"


def first_violation(value: Any, limits: JsonLimits) -> tuple[list[Any], str] | None:
    """``(path, problem)`` of the first value, in document order, that breaks ``limits``; None when all fit."""
    stack: list[tuple[list[Any], Any, int]] = [([], value, 1)]
    while stack:
        path, item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > limits.max_depth:
                return path, f"nested deeper than {limits.max_depth} levels"
            cap = limits.max_items[min(depth - 1, len(limits.max_items) - 1)]
            if isinstance(item, list):
                if len(item) > cap:
                    return path, f"a list of {len(item)} items, over the limit of {cap}"
                children = [([*path, i], v, depth + 1) for i, v in enumerate(item)]
            else:
                if len(item) > limits.max_keys:
                    return path, f"an object of {len(item)} fields, over the limit of {limits.max_keys}"
                children = []
                for k, v in item.items():
                    if not isinstance(k, str):
                        return path, f"field names must be text, not {type(k).__name__}"
                    if len(k) > limits.max_text:
                        return path, f"a field name of {len(k)} characters, over the limit of {limits.max_text}"
                    if not is_unicode(k):
                        return path, "a field name holds a lone surrogate (not valid Unicode)"
                    children.append(([*path, k], v, depth + 1))
            stack.extend(reversed(children))
        elif (problem := _scalar_problem(item, limits)) is not None:
            return path, problem
    return None
