"""A scripted "model" for the scripted server: per query, one action per assistant turn.

An action is ``{"tool_calls": [(name, arguments_text)]}`` or ``{"content": text}``; ``"before"`` lists the
failures (``{"status": 500}``, ``{"hang": s}``) served to the first attempts of that turn, and ``"always"``
one served to every attempt. Without ``tools`` in the request (text mode) tool calls are written as
``<tool_call>`` blocks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from planshape.validators.travelplanner.evaluation.submission import is_structured
from planshape.validators.travelplanner.plan.formats import from_upstream


def answer(plan: Any) -> str:
    """A final reply holding ``plan`` (upstream or structured) as Planner-R1's structured answer."""
    structured = plan if is_structured(plan) else from_upstream(plan)
    return f"Here is the plan.\n<answer>{json.dumps(structured)}</answer>"


def model(turns: Mapping[str, Sequence[dict[str, Any]]]):
    """The script: ``turns[query text][t]`` is the reply to turn t (the last repeats)."""

    def script(request: dict[str, Any], attempt: int) -> dict[str, Any]:
        messages = request["messages"]
        user = next(m["content"] for m in messages if m["role"] == "user")
        turn = sum(m["role"] == "assistant" for m in messages)
        actions = turns[user]
        action = actions[min(turn, len(actions) - 1)]
        if "always" in action:
            return action["always"]
        before = action.get("before", [])
        if attempt < len(before):
            return before[attempt]
        if "tools" not in request and action.get("tool_calls"):
            blocks = "".join(f'<tool_call>{{"name": {json.dumps(n)}, "arguments": {a}}}</tool_call>'
                             for n, a in action["tool_calls"])
            return {"content": f"Let me look that up.\n{blocks}"}
        return action

    return script
