"""The seven TravelPlanner agent tools of Planner-R1, as plain functions over a sandbox.

Each returns text a model can read: a small CSV table (names may hold commas and ``|``, so cells are
quoted as CSV does) whose column names are the plan format's field names, cut to ``max_chars`` with a note
when longer. Bad arguments (unknown city, malformed date,
wrong types, missing fields) return an ``Error: ...`` line the model can act on; nothing raises into the
rollout loop. ``TOOL_SCHEMAS`` holds an OpenAI-style function schema per tool; the trainers' tool
wrappers are thin layers over ``ToolBox.call``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..plan.json_limits import is_unicode
from ..store.sandbox import SandboxStore, ground_cost
from ..text import before_parenthesis
from .calculator import CalculatorError, calculate, format_number

DEFAULT_MAX_CHARS = 8192  # Planner-R1's max_tool_response_length
MAX_ARGUMENT_CHARS = 200
MIN_CHARS = 1


class ToolError(ValueError):
    """A bad call; the message is shown to the model."""


def _schema(name: str, description: str, **params: str) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": {k: {"type": "string", "description": v}
                                                        for k, v in params.items()},
                       "required": list(params), "additionalProperties": False}}}


TOOL_SCHEMAS: dict[str, dict[str, Any]] = {s["function"]["name"]: s for s in (
    _schema("search_flights", "Flights from one city to another on a date.",
            origin="departure city, e.g. 'St. Petersburg'", destination="arrival city",
            date="departure date, YYYY-MM-DD"),
    _schema("search_accommodations", "Accommodations in a city, with price per night, room type, house rules, "
            "minimum nights and maximum occupancy.", city="city name"),
    _schema("search_restaurants", "Restaurants in a city, with cuisines and average cost per person.",
            city="city name"),
    _schema("search_attractions", "Attractions in a city.", city="city name"),
    _schema("search_ground_transportation", "Self-driving or taxi between two cities: duration, distance and "
            "cost (self-driving: one car for up to 5 people; taxi: one taxi for up to 4).",
            origin="departure city", destination="arrival city", mode="'self-driving' or 'taxi'"),
    _schema("get_cities", "The cities of a state that the sandbox knows.", state="state name, e.g. 'Texas'"),
    _schema("calculator", "Evaluate arithmetic: numbers, + - * /, parentheses, round(x, digits), min, max, abs.",
            expression="e.g. '(474 + 346) * 2 + 3 * 95'"),
)}


# Tool column (the plan format's field names) -> row field, per place table.
CITY_COLUMNS: dict[str, dict[str, str]] = {
    "accommodations": {"name": "name", "city": "city", "room_type": "room_type", "price": "price",
                       "minimum_nights": "minimum_nights", "maximum_occupancy": "maximum_occupancy",
                       "house_rules": "house_rules", "review_rate": "review_rate_number"},
    "restaurants": {"name": "name", "city": "city", "cuisines": "cuisines", "average_cost": "average_cost",
                    "rating": "aggregate_rating"},
    "attractions": {"name": "name", "city": "city", "address": "address", "phone": "phone", "website": "website"},
}


def _csv_line(cells: Sequence[Any]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(
        format_number(v) if isinstance(v, float) else str(v) for v in cells)
    return buffer.getvalue()


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]], max_chars: int) -> str:
    """CSV header + rows within ``max_chars``; when rows must be dropped, a last line says how many were kept."""
    lines = [_csv_line(columns)]
    size = len(lines[0])
    for i, row in enumerate(rows):
        line = _csv_line(row)
        room_for_note = 0 if i == len(rows) - 1 else 48
        if size + 1 + len(line) + room_for_note > max_chars:
            lines.append(f"[truncated: showing {i} of {len(rows)} rows]")
            break
        lines.append(line)
        size += 1 + len(line)
    return "\n".join(lines)


@dataclass
class ToolBox:
    """The tools bound to one sandbox (``max_chars`` bounds every response)."""

    store: SandboxStore
    max_chars: int = DEFAULT_MAX_CHARS

    def __post_init__(self) -> None:
        if isinstance(self.max_chars, bool) or not isinstance(self.max_chars, int) or self.max_chars < MIN_CHARS:
            raise ValueError(f"ToolBox max_chars must be a whole number >= {MIN_CHARS}, got {self.max_chars!r}")

    # -------------------------------------------------------------- argument checks

    def _text(self, value: Any, name: str) -> str:
        if not isinstance(value, str):
            raise ToolError(f"'{name}' must be text, got {type(value).__name__}")
        if len(value) > MAX_ARGUMENT_CHARS:
            raise ToolError(f"'{name}' is longer than {MAX_ARGUMENT_CHARS} characters")
        if not value.strip():
            raise ToolError(f"'{name}' is empty")
        if not is_unicode(value):
            raise ToolError(f"'{name}' holds a lone surrogate (not valid Unicode text)")
        return value.strip()

    def _city(self, value: Any, name: str = "city", table: str | None = None) -> str:
        city = before_parenthesis(self._text(value, name)).strip()  # "Dallas(Texas)" -> "Dallas"
        if city in self.store.city_state or (table and self.store.in_city(table, city)):
            return city
        hint = [c for c in self.store.city_state if c.lower() == city.lower()]
        suggestion = f" Did you mean '{hint[0]}'?" if hint else " Use get_cities(state) to list valid cities."
        raise ToolError(f"no city named '{city}' in the sandbox.{suggestion}")

    def _date(self, value: Any) -> str:
        text = self._text(value, "date")
        try:
            return dt.date.fromisoformat(text).isoformat() if len(text) == 10 else _bad_date(text)
        except ValueError:
            return _bad_date(text)

    # -------------------------------------------------------------- the seven tools

    def search_flights(self, origin: Any, destination: Any, date: Any) -> str:
        o, d, day = self._city(origin, "origin"), self._city(destination, "destination"), self._date(date)
        rows = self.store.flights(o, d, day)
        if not rows:
            return f"There is no flight from {o} to {d} on {day}."
        return _table(("flight_number", "price", "departure_time", "arrival_time", "duration", "date", "from", "to",
                       "distance_miles"),
                      [(f.flight_number, f.price, f.dep_time, f.arr_time, f.actual_elapsed_time, f.flight_date,
                        f.origin, f.destination, f.distance) for f in rows], self.max_chars)

    def _in_city(self, table: str, city: Any) -> str:
        """One city's rows of a place table, under the column names of ``CITY_COLUMNS``."""
        c = self._city(city, table=table)
        rows = self.store.in_city(table, c)
        if not rows:
            return f"There is no {table[:-1]} in {c}."
        columns = CITY_COLUMNS[table]
        cells = [tuple(getattr(r, f) for f in columns.values()) for r in rows]
        return _table(list(columns.keys()), cells, self.max_chars)

    def search_accommodations(self, city: Any) -> str:
        return self._in_city("accommodations", city)

    def search_restaurants(self, city: Any) -> str:
        return self._in_city("restaurants", city)

    def search_attractions(self, city: Any) -> str:
        return self._in_city("attractions", city)

    def search_ground_transportation(self, origin: Any, destination: Any, mode: Any) -> str:
        o, d = self._city(origin, "origin"), self._city(destination, "destination")
        kind = self._text(mode, "mode").lower()
        if kind not in ("self-driving", "taxi"):
            raise ToolError(f"mode must be 'self-driving' or 'taxi', got '{kind}'")
        row = self.store.distance(o, d)
        cost = ground_cost(self.store, o, d, kind)
        label = "Self-driving" if kind == "self-driving" else "Taxi"
        if row is None or cost is None:
            return f"{label}, from {o} to {d}, no valid information."
        return f"{label}, from {o} to {d}, duration: {row.duration}, distance: {row.distance}, cost: {cost}"

    def get_cities(self, state: Any) -> str:
        name = self._text(state, "state")
        cities = [c for c, s in self.store.city_state.items() if s == name]
        if not cities:
            states = sorted({s for s in self.store.city_state.values() if s.lower() == name.lower()})
            hint = f" Did you mean '{states[0]}'?" if states else ""
            raise ToolError(f"no state named '{name}' in the sandbox.{hint}")
        return _table(("city",), [(c,) for c in cities], self.max_chars)

    def calculator(self, expression: Any) -> str:
        try:
            return format_number(calculate(expression))
        except CalculatorError as exc:
            raise ToolError(str(exc)) from None

    # -------------------------------------------------------------- dispatch

    def call(self, name: Any, arguments: Any = None) -> str:
        """Run a tool by name with a dict (or JSON text) of arguments; errors come back as ``Error: ...``.

        Every response, error or not, is at most ``max_chars`` characters of valid Unicode (an echoed lone
        surrogate is replaced, so the trainer's tokenizer can encode it)."""
        text = clip(self._call(name, arguments), self.max_chars)
        return text if is_unicode(text) else text.encode("utf-8", "replace").decode("utf-8")

    def refuse(self, reason: str) -> str:
        """A call not run, answered as a bad call is: ``Error: reason`` within ``max_chars``."""
        return clip(f"Error: {reason}", self.max_chars)

    def call_turn(self, calls: Sequence[Any], max_calls: int) -> list[str]:
        """One assistant turn's calls answered in order: each has ``name`` and ``arguments`` (a native call), and
        a text block that is no call also its ``error`` (``tool_calls.TextCall``), answered with that reason. Past
        ``max_calls`` each gets an error saying it was not run, so the model learns the limit instead of losing
        calls silently."""
        return [self.refuse(f"at most {max_calls} tool calls per turn; this one was not run") if i >= max_calls
                else self.refuse(error) if (error := getattr(call, "error", None)) is not None
                else self.call(call.name, call.arguments) for i, call in enumerate(calls)]

    def form_error(self, name: Any, arguments: Any = None) -> str | None:
        """What ``call`` answers a call whose form is wrong (an unknown tool, arguments that are not a JSON object,
        missing or unexpected argument names), without running a tool; None for a call of the right form. A
        standard that checks calls itself before they reach the toolbox (an MCP server's argument validation, an
        agent harness's own JSON check) asks this first, so that the model reads the toolbox's answer there too."""
        try:
            self._arguments(name, arguments)
        except ToolError:
            return self.call(name, arguments)  # refused before any tool runs: the same answer, clipped the same way
        return None

    def _call(self, name: Any, arguments: Any) -> str:
        try:
            checked = self._arguments(name, arguments)
            tool: Callable[..., str] = getattr(self, name)
            return tool(**checked)
        except ToolError as exc:
            return f"Error: {exc}"
        except Exception as exc:  # noqa: BLE001 - nothing a model sends may raise into the rollout loop
            return f"Error: the call failed ({type(exc).__name__})"

    @staticmethod
    def _arguments(name: Any, arguments: Any) -> dict[str, Any]:
        """The arguments of a call of the right form (see ``form_error``), or ``ToolError`` saying what is wrong."""
        if not isinstance(name, str):
            raise ToolError(f"unknown tool: a tool name is text, not {type(name).__name__}; "
                            f"tools: {', '.join(TOOL_SCHEMAS)}")
        if name not in TOOL_SCHEMAS:
            raise ToolError(f"unknown tool '{name[:40]}'; tools: {', '.join(TOOL_SCHEMAS)}")
        if isinstance(arguments, str):
            if len(arguments) > 4 * MAX_ARGUMENT_CHARS:
                raise ToolError("the arguments are too long")
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                raise ToolError("the arguments are not valid JSON") from None
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            raise ToolError("the arguments must be a JSON object")
        expected = TOOL_SCHEMAS[name]["function"]["parameters"]["required"]
        missing = [k for k in expected if k not in arguments]
        unknown = [k for k in arguments if k not in expected]
        if missing:
            raise ToolError(f"{name} is missing {', '.join(repr(m) for m in missing)}")
        if unknown:
            raise ToolError(f"{name} got unexpected {_names(unknown)}; it takes {expected}")
        return arguments


def _names(keys: Sequence[Any], shown: int = 3) -> str:
    """A few argument names, each cut to 40 characters: an error never echoes a whole payload back."""
    names = ", ".join(repr(str(k)[:40]) for k in keys[:shown])
    return names + (f" and {len(keys) - shown} more" if len(keys) > shown else "")


def clip(text: str, max_chars: int) -> str:
    """``text`` cut to ``max_chars`` characters, with a note saying so when there is room for one."""
    if len(text) <= max_chars:
        return text
    note = f"\n[cut to {max_chars} characters]"
    return text[: max_chars - len(note)] + note if max_chars >= 2 * len(note) else text[:max_chars]


def _bad_date(text: str) -> str:
    raise ToolError(f"date must be YYYY-MM-DD, e.g. 2022-03-16, got '{text[:40]}'")
