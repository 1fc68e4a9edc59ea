"""The Planner-R1 prompt, in one versioned place so that every trainer trains on the same text.

The paper does not publish its prompts (notes/planpo-and-planner-r1.md §1.1); this is planshape's own:
the task, the seven tools, the answer format with its JSON Schema, one ``<answer>`` block at the end.
A run records ``PROMPT_VERSION``; change the version whenever the text changes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..plan.answer import CLOSE, OPEN
from ..plan.formats import plan_schema
from .tools import TOOL_SCHEMAS

PROMPT_VERSION = "planshape-travelplanner-1"

_TASK = """You are a travel planning agent. Plan the trip the user asks for, using only information returned by \
the tools: flights, accommodations, restaurants, attractions, ground transportation (self-driving or taxi), the \
cities of a state, and a calculator. Every flight, restaurant, attraction and accommodation in the plan must come \
from a tool response, named exactly as there, with its city. Respect the user's budget and every constraint \
(house rules, room type, cuisines, transportation). Do not repeat a restaurant or an attraction, and do not mix \
flights with self-driving. Stay at least as many nights as an accommodation's minimum.

Call one tool per turn. When the plan is complete, reply with the final plan only, as strict JSON inside one \
{open}...{close} block, at the end of your message: a list with one object per day, following this JSON Schema:
{schema}

Example day: {example}"""

_EXAMPLE = {
    "days": 1, "city": {"from": "St. Petersburg", "to": "Rockford"},
    "transportation": {"mode": "flight", "flight_number": "F3573659", "from": "St. Petersburg", "to": "Rockford",
                       "departure_time": "15:40", "arrival_time": "17:04"},
    "breakfast": None, "attraction": [], "lunch": None,
    "dinner": {"name": "Coco Bambu", "city": "Rockford"},
    "accommodation": {"name": "Pure luxury one bdrm + sofa bed on Central Park", "city": "Rockford"},
}

_TOOL_CALLS = """

Tools (call one per turn as {{"name": ..., "arguments": {{...}}}} inside <tool_call>...</tool_call>):
{tools}"""


def system_prompt(include_tools: bool = False) -> str:
    """The system prompt. ``include_tools`` lists the tools and the call format in the text, for trainers whose
    chat template does not render tool schemas itself."""
    text = _TASK.format(open=OPEN, close=CLOSE, schema=json.dumps(plan_schema(), separators=(",", ":")),
                        example=json.dumps(_EXAMPLE))
    if include_tools:
        tools = "\n".join(json.dumps(s["function"]) for s in TOOL_SCHEMAS.values())
        text += _TOOL_CALLS.format(tools=tools)
    return text


def messages(record: Mapping[str, Any], include_tools: bool = False) -> list[dict[str, str]]:
    """The chat prompt of one TravelPlanner record: the system prompt, then the query text as the user turn."""
    query = record.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError("the record has no 'query' text to prompt with")
    return [{"role": "system", "content": system_prompt(include_tools)}, {"role": "user", "content": query}]
