"""Tool calls written as text, for endpoints without a tool-call parser: ``<tool_call>{"name": ..., "arguments":
{...}}</tool_call>`` blocks (the Hermes / Qwen format the system prompt asks for with ``include_tools``), and
the ``<tool_response>`` wrapping their results go back in.

A block runs from a ``<tool_call>`` tag to the first ``</tool_call>`` after it, as the trainers' regex
``<tool_call>(.*?)</tool_call>`` reads it (an unclosed tag is no call), so training and evaluation see the same
calls. A block that is not a call (not JSON, not an object with a ``name``, over the size cap, or holding a second
opening tag) is kept with the reason, which the model is answered with, as a bad native call is. A linear scan,
not a regex: model text is untrusted, and each character is looked at a bounded number of times however the tags
are nested or left open.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

OPEN_CALL, CLOSE_CALL = "<tool_call>", "</tool_call>"
TOOL_RESPONSE = "<tool_response>\n{content}\n</tool_response>"
MAX_CALL_CHARS = 4096  # a block longer than this is answered with an error, not parsed
MAX_TEXT_CALLS = 64  # the most blocks read from one turn (a turn's own call limit answers the rest with an error)
CALL_FORMAT = '{"name": ..., "arguments": {...}}'
JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean",
              type(None): "null"}


@dataclass(frozen=True)
class TextCall:
    """One ``<tool_call>`` block: the call it names, or (``error`` set) why it is not a call. ``ToolBox.call_turn``
    answers a turn's blocks: a call with the tool's answer, a block that is no call with ``Error: {error}``."""

    name: Any = None
    arguments: Any = None
    error: str | None = None


def parse_tool_calls(text: Any, limit: int) -> list[TextCall]:
    """The blocks of ``text`` in order, at most ``limit``. Never raises; linear in ``len(text)``.

    >>> parse_tool_calls('<tool_call>{"name": "get_cities", "arguments": {"state": "Texas"}}</tool_call>', limit=8)
    [TextCall(name='get_cities', arguments={'state': 'Texas'}, error=None)]
    >>> [call.error for call in parse_tool_calls("<tool_call>{not json</tool_call> <tool_call>never closed", 8)]
    ['the tool call is not valid JSON (Expecting property name enclosed in double quotes at character 1)']
    """
    if not isinstance(text, str):
        return []
    calls: list[TextCall] = []
    start = text.find(OPEN_CALL)
    while start >= 0 and len(calls) < limit:
        body = start + len(OPEN_CALL)
        end = text.find(CLOSE_CALL, body)
        if end < 0:
            break
        if text.find(OPEN_CALL, body, end) >= 0:  # bounded by the block: no character is scanned twice for it
            calls.append(TextCall(error=f"a {OPEN_CALL} block holds another {OPEN_CALL} tag: write each call as "
                                        f"{OPEN_CALL}{CALL_FORMAT}{CLOSE_CALL}"))
        else:
            calls.append(read_call(text[body:end]))
        start = text.find(OPEN_CALL, end + len(CLOSE_CALL))
    return calls


def read_call(block: str) -> TextCall:
    """One block's text as a call, or the reason it is not one."""
    if len(block) > MAX_CALL_CHARS:
        return TextCall(error=f"the tool call is longer than {MAX_CALL_CHARS} characters")
    if not block.strip():
        return TextCall(error=f"the tool call is empty: write {CALL_FORMAT} inside the block")
    try:
        call = json.loads(block)
    except json.JSONDecodeError as exc:
        return TextCall(error=f"the tool call is not valid JSON ({exc.msg} at character {exc.pos})")
    except (ValueError, RecursionError):  # nested past the parser's depth, or an odd number literal
        return TextCall(error="the tool call is not valid JSON")
    if not isinstance(call, dict):
        return TextCall(error=f"a tool call is a JSON object {CALL_FORMAT}, got {JSON_TYPES.get(type(call), 'JSON')}")
    if "name" not in call:
        return TextCall(error=f"the tool call has no \"name\": write {CALL_FORMAT}")
    return TextCall(call["name"], call.get("arguments"))


def tool_responses(responses: list[str]) -> str:
    """The tool results of one turn as one message's text."""
    return "\n".join(TOOL_RESPONSE.format(content=r) for r in responses)
