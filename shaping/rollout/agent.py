"""The Planner-R1 agent loop over a served model: one trajectory of one query, stepped on the one agent loop
(``Turns``: the facade's, as every trainer and environment standard steps it).

Each turn is one chat completion. A reply with tool calls (native ``tool_calls``, or ``<tool_call>`` blocks in
text mode) has each call answered by the toolbox (a tool message per call id; one user message of
``<tool_response>`` blocks in text mode); a reply without one is the final answer. The ``max_turns``-th reply is
final whatever it holds. A request that fails after its retries ends the trajectory with the error recorded;
nothing the model writes raises here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from planshape.shaping.facade import MAX_TEXT_CALLS, TextCall, Turns, parse_tool_calls, tool_responses
from planshape.validators.travelplanner.agent.tools import ToolBox

from .client import ChatClient, Reply, RequestFailed, ToolCall

ANSWERED, MAX_TURNS, ERROR = "answered", "max_turns", "error"


@dataclass
class Trajectory:
    """What one trajectory did; ``transcript`` holds every message after the system prompt."""

    transcript: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    tool_calls: int = 0
    answer: str | None = None  # the final reply's text (scored: its last answer block counts)
    status: str = ANSWERED
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


async def play(messages: list[dict[str, Any]], client: ChatClient, tools: ToolBox,
               schemas: list[dict[str, Any]] | None, max_turns: int, max_calls: int) -> Trajectory:
    """Run the loop from the prompt ``messages``; ``schemas`` None selects text mode."""
    history = list(messages)
    offset = 1 if history and history[0].get("role") == "system" else 0  # the shared system prompt is not kept
    done = Trajectory()
    loop = Turns(tools, max_turns, max_calls)
    while not loop.ended:
        try:
            reply = await client.complete(history, schemas)
        except RequestFailed as exc:
            done.status, done.error = ERROR, f"turn {loop.turns + 1}: {exc}"
            break
        done.prompt_tokens += reply.prompt_tokens
        done.completion_tokens += reply.completion_tokens
        calls: list[ToolCall] | list[TextCall] = (reply.tool_calls if schemas is not None
                                                   else parse_tool_calls(reply.content, MAX_TEXT_CALLS))
        history.append(_assistant(reply, schemas is not None))
        results = loop.turn(calls)  # a text block that is no call: answered with the reason
        if results is None:
            done.answer = reply.content
            done.status = MAX_TURNS if calls else ANSWERED
            break
        if schemas is not None:
            history.extend({"role": "tool", "tool_call_id": getattr(c, "id", None), "content": r}
                           for c, r in zip(calls, results, strict=True))  # native calls: each has its id
        else:
            history.append({"role": "user", "content": tool_responses(results)})
    done.turns, done.tool_calls = loop.turns, loop.tool_calls
    done.transcript = history[offset:]
    return done


def _assistant(reply: Reply, native: bool) -> dict[str, Any]:
    """The reply as the next request's assistant message (and the transcript's)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if native and reply.tool_calls:
        message["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": _text(c.name), "arguments": _text(c.arguments)}}
                                 for c in reply.tool_calls]
    return message


def _text(value: Any) -> str:
    """What a model sent as a name or arguments, as the text the protocol carries."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
