"""Seeded inputs for fuzzing each adapter's entry points the way its trainer calls them (one module, used by
every adapter suite): model text, which must never raise, and trainer-side fields (labels, step counters, row
mappings), which must work or raise a ``ValueError`` naming the field and what it must be."""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable
from typing import Any

import numpy as np

CASES = min(int(os.environ.get("PLANSHAPE_FUZZ_EXAMPLES", "1000")), 400)
"""Cases per entry point (each is a real trainer-shaped call; a few hundred keep every suite quick)."""
FIELD_WORDS = ("query", "Query", "ground_truth", "reward_model", "extra_info", "global_steps", "global_step",
               "step", "label", "column", "queries", "prompts", "record", "planshape")
"""A trainer-side error must name what was wrong: one of these words (the fields an adapter reads)."""


def deep(depth: int, leaf: Any = 1) -> Any:
    """A Python value nested ``depth`` levels deep, built without recursion."""
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return value


def model_text(rng: random.Random, good: str) -> str:
    """Text a policy could write: the good answer, broken or mutated versions of it, and hostile shapes."""
    k = rng.choice([1, 10, 1000, 20_000, 200_000])
    cut = rng.randrange(len(good) + 1)
    choices: list[Callable[[], str]] = [
        lambda: good,
        lambda: good[:cut],
        lambda: good[:cut] + rng.choice(["\x00", "\ud800", "</answer>", "<answer>", "{", "]", "\\", '"']) + good[cut:],
        lambda: "<answer>" + "[" * k + "</answer>",
        lambda: "<answer>" + "{\"a\":" * k + "1" + "}" * k + "</answer>",
        lambda: "<tool_call>" + "[" * k + "</tool_call>",
        lambda: '<tool_call>{"name": "search_flights", "arguments": ' + "[" * k + "</tool_call>",
        lambda: '<tool_call>{"name": ' + json.dumps("x" * k) + ', "arguments": {}}</tool_call>',
        lambda: "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randrange(200))),
        lambda: good + "</tool_response>" + good[:cut],
        lambda: "<answer>" * k,
        lambda: good.replace('"', "'"),
        lambda: "",
        lambda: " " * k + good,
    ]
    try:
        return rng.choice(choices)()
    except (ValueError, OverflowError):  # a code point the platform refuses: use the plain answer
        return good


def label(rng: random.Random, query: dict) -> Any:
    """A trainer-side query label: the good one (as JSON text or a mapping) or one that is wrong in some way."""
    text = json.dumps(query)
    key = rng.choice(sorted(query))
    return rng.choice([
        text, text, query, dict(query),
        "[" * 100_000, "{\"a\": [" * 5_000 + "1" + "]}" * 5_000, deep(3_000), {**query, key: deep(2_000)},
        "not json", "", None, 5, 3.5, [query], text.encode(), {}, {"query": 5},
        {**query, key: None}, {**query, key: rng.choice([[], {}, -1, "x" * 10_000, float("nan")])},
        json.dumps([query]), text[: len(text) // 2],
    ])


def step_counter(rng: random.Random) -> Any:
    """A trainer's step counter: usual values and the ones a broken row or resumed state can hold."""
    return rng.choice([1, 2, 7, 501, np.int64(3), 0, -1, math.inf, -math.inf, math.nan, 2.5, 3.0, "3", True, None,
                       10 ** 30, [1], np.float64(4.0)])


def row_mapping(rng: random.Random, good: dict) -> Any:
    """A per-row mapping a trainer passes (``extra_info``, ``reward_model``): good, or not a mapping at all."""
    return rng.choice([good, good, dict(good), None, "text", [good], 5, {}, {**good, "extra": deep(100)}])


def outcome(call: Callable[[], Any]) -> str | None:
    """None when ``call`` returned or raised a ``ValueError`` naming a field; else what went wrong."""
    try:
        call()
    except ValueError as exc:
        text = str(exc)
        if any(word in text for word in FIELD_WORDS):
            return None
        return f"ValueError naming no field: {text[:200]}"
    except Exception as exc:  # noqa: BLE001 - any other exception is the defect being fuzzed for
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    return None


def must_not_raise(call: Callable[[], Any]) -> str | None:
    """None when ``call`` returned; else the exception (model text may never raise)."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - any exception from model text is a defect
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    return None
