"""A witness plan as a supervised example: the Planner-R1 prompt, the tool calls that find the plan's rows with
the toolbox's real answers, a calculator call for the total, then the plan as the final answer.

The chat format is the one TRL's SFT trainer and the trainers' chat templates read: ``messages`` with roles, each
assistant turn one tool call in the OpenAI shape (``tool_calls: [{id, type: "function", function: {name,
arguments}}]``, the arguments as JSON text, as the OpenAI protocol and ``planshape rollout`` carry them), each
answer a ``tool`` message with its ``tool_call_id``. ``tools`` holds the seven schemas as JSON text (one Arrow type
for every row); ``planshape_query`` the query as the reward reads it back. An example is only written when every
place of the plan is in the tool answers it was found in (a listing cut off at ``max_chars`` is not shown, and a
demonstration must not name what it was never shown).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

from ..plan.answer import answer_text
from ..query import Query
from ..store.sandbox import SandboxStore, vehicles
from .prompt import PROMPT_VERSION, messages
from .tools import DEFAULT_MAX_CHARS, TOOL_SCHEMAS, ToolBox

QUERY_FIELDS = tuple(Query.model_fields)
PLACE_TOOLS = (("accommodation", "search_accommodations"), ("breakfast", "search_restaurants"),
               ("lunch", "search_restaurants"), ("dinner", "search_restaurants"))


class Unshown(ValueError):
    """A place of the plan is not in the (cut) tool answer the demonstration would find it in."""


def demonstration(record: Mapping[str, Any], answer: list[dict[str, Any]], store: SandboxStore,
                  max_chars: int = DEFAULT_MAX_CHARS) -> dict[str, Any]:
    """The SFT example of a witness ``answer`` (the structured plan) for the query ``record``."""
    query = Query.from_record(record)
    tools = ToolBox(store, max_chars)
    calls = _calls(query, answer, store)
    chat: list[dict[str, Any]] = list(messages(record))
    shown: dict[tuple[str, str], str] = {}
    for n, (name, arguments) in enumerate(calls):
        call_id = f"call_{n}"
        result = tools.call(name, arguments)
        chat.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        chat.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": result})
        key = arguments.get("city") or arguments.get("expression")
        if key is not None:
            shown[(name, key)] = result
    _check_shown(answer, shown)
    chat.append({"role": "assistant", "content": answer_text(answer)})
    return {"messages": chat, "tools": json.dumps([TOOL_SCHEMAS[name] for name in TOOL_SCHEMAS]),
            "planshape_query": json.dumps({k: record[k] for k in QUERY_FIELDS if k in record}, default=str),
            "prompt_version": PROMPT_VERSION}


def _calls(query: Query, answer: list[dict[str, Any]], store: SandboxStore) -> list[tuple[str, dict[str, str]]]:
    """The calls, in the order a planner makes them: the state's cities, each leg, each city's places, the sum."""
    calls: list[tuple[str, dict[str, str]]] = []
    if query.days > 3:
        calls.append(("get_cities", {"state": query.dest}))
    cities: list[str] = []
    for i, day in enumerate(answer):
        leg = day["transportation"]
        if leg is not None:
            if leg["mode"] == "flight":
                calls.append(("search_flights", {"origin": leg["from"], "destination": leg["to"],
                                                 "date": query.date[i]}))
            else:
                calls.append(("search_ground_transportation", {"origin": leg["from"], "destination": leg["to"],
                                                               "mode": leg["mode"]}))
        for place in [day[k] for k in ("accommodation", "breakfast", "lunch", "dinner")] + day["attraction"]:
            if place is not None and place["city"] not in cities:
                cities.append(place["city"])
    for city in cities:
        for name in ("search_accommodations", "search_restaurants", "search_attractions"):
            if any(_places(day, name, city) for day in answer):
                calls.append((name, {"city": city}))
    calls.append(("calculator", {"expression": cost_expression(query, answer, store)}))
    return calls


def _places(day: dict[str, Any], tool: str, city: str) -> list[str]:
    """The names of ``day``'s places in ``city`` that ``tool`` lists."""
    if tool == "search_attractions":
        return [p["name"] for p in day["attraction"] if p["city"] == city]
    return [day[k]["name"] for k, t in PLACE_TOOLS if t == tool and day[k] is not None and day[k]["city"] == city]


def _check_shown(answer: list[dict[str, Any]], shown: dict[tuple[str, str], str]) -> None:
    names = {key: _names(text) for key, text in shown.items()}
    for day in answer:
        for tool in ("search_accommodations", "search_restaurants", "search_attractions"):
            for city in {p["city"] for p in [day[k] for k, _ in PLACE_TOOLS] + day["attraction"] if p is not None}:
                for name in _places(day, tool, city):
                    if name not in names.get((tool, city), set()):
                        raise Unshown(f"{name!r} ({city}) is not in the {tool} answer (cut at its length limit)")


def _names(table: str) -> set[str]:
    """The ``name`` cells of a tool's CSV answer (the first column), stripped as a plan names them."""
    rows = list(csv.reader(io.StringIO(table)))
    if not rows or rows[0][:1] != ["name"]:
        return set()
    return {row[0].strip() for row in rows[1:] if row}


def cost_expression(query: Query, answer: list[dict[str, Any]], store: SandboxStore) -> str:
    """The trip's cost as the calculator sums it: flights per person, cars and taxis per vehicle, meals per person,
    each night's rooms (the budget check's model, the rows' prices)."""
    people, fares, meals, nights = query.people_number, [], [], []
    for i, day in enumerate(answer):
        leg = day["transportation"]
        if leg is not None and leg["mode"] == "flight":
            row = store.flight_on_route(leg["flight_number"], leg["from"], leg["to"], query.date[i])
            fares.append(f"{_n(row.price)} * {people}" if row else "0")
        elif leg is not None:
            seats = 5 if leg["mode"] == "self-driving" else 4
            fares.append(f"{_n(leg['cost'])} * {vehicles(people, seats)}")
        for key in ("breakfast", "lunch", "dinner"):
            if day[key] is not None:
                rows = store.places("restaurants", day[key]["name"], day[key]["city"], exact=True)
                meals.append(_n(rows[0].average_cost))
        if day["accommodation"] is not None:
            rows = store.places("accommodations", day["accommodation"]["name"], day["accommodation"]["city"],
                                exact=True)
            nights.append(f"{_n(rows[0].price)} * {vehicles(people, rows[0].maximum_occupancy)}")
    terms = [*fares, *([f"({' + '.join(meals)}) * {people}"] if meals else []), *nights]
    return " + ".join(terms) or "0"


def _n(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else str(number)
