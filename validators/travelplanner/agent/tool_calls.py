"""Tool calls written as text, for endpoints without a tool-call parser: ``<tool_call>{"name": ..., "arguments":
{...}}</tool_call>`` blocks (the Hermes / Qwen format the system prompt asks for with ``include_tools``), and
the ``<tool_response>`` wrapping their results go back in. A linear scan, not a regex: model text is untrusted
and an unclosed block must not cost a rescan of the rest of the text.
"""

from __future__ import annotations

import json
from typing import Any

OPEN_CALL, CLOSE_CALL = "<tool_call>", "</tool_call>"
TOOL_RESPONSE = "<tool_response>\n{content}\n</tool_response>"
MAX_CALL_CHARS = 4096  # a block longer than this is answered with an error, not parsed
MAX_TEXT_CALLS = 64  # the most blocks read from one turn (a turn's own call limit answers the rest with an error)


def parse_tool_calls(text: Any, limit: int) -> list[tuple[Any, Any]]:
    """The ``(name, arguments)`` of each closed tool-call block, at most ``limit``. A block that is not a JSON
    object with a ``name`` (or is over ``MAX_CALL_CHARS``) becomes the call ``("", block)``, which the tools
    answer with an error, so the model sees what was wrong. Never raises.

    >>> parse_tool_calls('<tool_call>{"name": "get_cities", "arguments": {"state": "Texas"}}</tool_call>', limit=8)
    [('get_cities', {'state': 'Texas'})]
    >>> parse_tool_calls("<tool_call>{not json</tool_call> <tool_call>never closed", limit=8)
    [('', '{not json')]
    """
    if not isinstance(text, str):
        return []
    calls: list[tuple[Any, Any]] = []
    start = text.find(OPEN_CALL)
    while start >= 0 and len(calls) < limit:
        body = start + len(OPEN_CALL)
        end = text.find(CLOSE_CALL, body)
        if end < 0:
            break
        calls.append(_call(text[body:end]))
        start = text.find(OPEN_CALL, end + len(CLOSE_CALL))
    return calls


def _call(block: str) -> tuple[Any, Any]:
    if len(block) > MAX_CALL_CHARS:
        return "", block[:200]
    try:
        call = json.loads(block)
    except (ValueError, RecursionError):
        call = None
    if isinstance(call, dict) and "name" in call:
        return call["name"], call.get("arguments")
    return "", block


def tool_responses(responses: list[str]) -> str:
    """The tool results of one turn as one message's text."""
    return "\n".join(TOOL_RESPONSE.format(content=r) for r in responses)
