"""The two plan formats and the schema gate.

* upstream: a list of day dicts whose values are strings (``"Flight Number: F1, from A to B, ..."``);
* structured: the Planner-R1 answer format, a list of day objects with typed ``city`` and
  ``transportation`` (``plan.schema.json``).

``gate`` turns untrusted model text into an upstream plan, or a reason why it cannot: size-bounded
before parsing, strict JSON (no NaN), schema-validated with the failing day and field named.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import fastjsonschema
import jsonschema

from ..text import parse_transport
from .conversion import conversion_failure
from .json_limits import JsonLimits, first_violation

MAX_ANSWER_CHARS = 100_000
SCHEMA_FILE = "plan.schema.json"


@cache
def plan_schema() -> dict[str, Any]:
    """The published JSON Schema of the structured plan format."""
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """The schema with every local ``$ref`` replaced by its definition (it has no recursion), so that the
    compiled validator never resolves a reference (fastjsonschema would try to fetch an unknown base URI)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rpartition("/")[2]], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k not in ("$defs", "$id", "$schema")}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


@cache
def _fast_validators() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """Compiled (plan, day) validators: the fast yes/no (a valid plan at the size cap in about a millisecond)."""
    schema = plan_schema()
    plan = _inline(schema, schema["$defs"])
    return fastjsonschema.compile(plan), fastjsonschema.compile(plan["items"])


_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)\$")


@cache
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """A schema pattern as ECMA-262 reads it: ``$`` is the end of the text. Python's ``$`` also matches
    before a final newline, so ``"F1\n"`` would pass ``^F[0-9]+$``; fastjsonschema reads ``$`` as ``\\Z``,
    and the explaining validator must give the same answer."""
    return re.compile(_UNESCAPED_DOLLAR.sub(r"\\Z", pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Any:
    if validator.is_type(instance, "string") and not _ecma_regex(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _explainer() -> type:
    """The schema's own validator class, with ``pattern`` read as the compiled validator reads it."""
    return jsonschema.validators.extend(jsonschema.validators.validator_for(plan_schema()), {"pattern": _pattern})


def _validator_for(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    return _explainer()(schema)


@cache
def _plan_validator() -> jsonschema.protocols.Validator:
    """The schema without its ``items``: is the answer a list of an allowed number of days."""
    return _validator_for({k: v for k, v in plan_schema().items() if k != "items"})


@cache
def _day_validator() -> jsonschema.protocols.Validator:
    """One day on its own, so that an explanation looks at the first failing day only."""
    schema = plan_schema()
    return _validator_for({"$schema": schema["$schema"], "$defs": schema["$defs"], **schema["items"]})


def _fast_error(validate: Callable[[Any], Any], instance: Any) -> fastjsonschema.JsonSchemaValueException | None:
    try:
        validate(instance)
    except fastjsonschema.JsonSchemaValueException as exc:
        return exc
    return None


@cache
def gate_limits() -> JsonLimits:
    """The schema's own size limits, checked before it runs (so a degenerate answer is rejected at once).

    Containers nest 4 deep at most (plan > day > attraction list > place); no list below the plan is longer
    than the attraction list, no text longer than ``$defs.text``; numbers stay within 1e15 (a cost).
    """
    schema = plan_schema()
    defs = schema["$defs"]
    return JsonLimits(max_depth=4, max_items=(schema["maxItems"], defs["day"]["properties"]["attraction"]["maxItems"]),
                      max_keys=2 * len(defs["day"]["properties"]), max_text=defs["text"]["maxLength"],
                      max_number=1e15)


# ------------------------------------------------------------ structured -> upstream strings


def _place(value: dict | None) -> str:
    return "-" if value is None else f"{value['name']}, {value['city']}"


def _transport(value: dict | None) -> str:
    if value is None:
        return "-"
    leg = f"from {value['from']} to {value['to']}"
    if value["mode"] == "flight":
        parts = [f"Flight Number: {value['flight_number']}", leg]
        if "departure_time" in value:
            parts.append(f"Departure Time: {value['departure_time']}")
        if "arrival_time" in value:
            parts.append(f"Arrival Time: {value['arrival_time']}")
    else:
        parts = ["Self-driving" if value["mode"] == "self-driving" else "Taxi", leg]
        for key in ("duration", "distance", "cost"):
            if key in value:
                cost = value[key]
                parts.append(f"{key}: {int(cost) if key == 'cost' and float(cost).is_integer() else cost}")
    return ", ".join(parts)


def to_upstream(days: list[dict]) -> list[dict[str, Any]]:
    """Structured (schema-valid) plan -> upstream day dicts, as the official evaluator reads them."""
    out = []
    for day in days:
        city = day["city"]
        out.append({
            "days": day["days"],
            "current_city": city["stay"] if "stay" in city else f"from {city['from']} to {city['to']}",
            "transportation": _transport(day["transportation"]),
            "breakfast": _place(day["breakfast"]),
            "attraction": "".join(_place(a) + ";" for a in day["attraction"]) or "-",
            "lunch": _place(day["lunch"]),
            "dinner": _place(day["dinner"]),
            "accommodation": _place(day["accommodation"]),
        })
    return out


# ------------------------------------------------------------ upstream strings -> structured

_TRAVEL = re.compile(r"^from (?P<from>.+?) to (?P<to>.+)$")


class FormatError(ValueError):
    """An upstream plan string that has no structured equivalent."""


def _parse_place(text: str, where: str) -> dict | None:
    if text in ("-", ""):
        return None
    name, sep, city = text.rpartition(",")
    if not sep or not name.strip() or not city.strip():
        raise FormatError(f"{where}: {text!r} is not 'Name, City'")
    return {"name": name.lstrip(), "city": city.strip()}  # keep "Name , City" round-tripping exactly


def _parse_transport(text: str, where: str) -> dict | None:
    if text in ("-", ""):
        return None
    out: dict[str, Any] | None = parse_transport(text)
    if out is None:
        raise FormatError(f"{where}: {text!r} is not a flight, self-driving or taxi string")
    if "cost" in out:
        cost = float(out["cost"])
        out["cost"] = int(cost) if cost.is_integer() else cost
    return out


def from_upstream(days: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Upstream day dicts -> structured plan. Empty padding days (``{}``) are dropped."""
    out = []
    for i, day in enumerate(days, start=1):
        if not day:
            continue
        where = f"day {i}"
        current = day["current_city"]
        m = _TRAVEL.match(current)
        attractions = [p for p in day.get("attraction", "-").split(";") if p.strip() not in ("", "-")]
        out.append({
            "days": day.get("days", day.get("day", i)),
            "city": {"from": m["from"], "to": m["to"]} if m else {"stay": current},
            "transportation": _parse_transport(day.get("transportation", "-"), f"{where} transportation"),
            "breakfast": _parse_place(day.get("breakfast", "-"), f"{where} breakfast"),
            "attraction": [_parse_place(a, f"{where} attraction") for a in attractions],
            "lunch": _parse_place(day.get("lunch", "-"), f"{where} lunch"),
            "dinner": _parse_place(day.get("dinner", "-"), f"{where} dinner"),
            "accommodation": _parse_place(day.get("accommodation", "-"), f"{where} accommodation"),
        })
    return out


# ------------------------------------------------------------ the gate


@dataclass(frozen=True)
class GateResult:
    """``plan`` holds upstream day dicts when ``ok``; otherwise ``reason`` says what is wrong."""

    ok: bool
    plan: list[dict[str, Any]] | None
    reason: str
    structured: list[dict[str, Any]] | None = None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class RepeatedKey(ValueError):
    """An object that names one key twice: JSON parsers keep the last value, a reader may take the first."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An answer means one thing: ``{"breakfast": A, "breakfast": null}`` is refused, not read as null."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise RepeatedKey(f"answer names the key {key!r} twice in one object: which value is meant is ambiguous")
    return obj


def _where(path: list[Any]) -> str:
    if not path:
        return "plan"
    head = f"day {path[0] + 1}" if isinstance(path[0], int) else str(path[0])
    rest = ".".join(str(p) for p in path[1:])
    return f"{head}, field '{rest}'" if rest else head


def _reason(path: list[Any], message: str) -> str:
    message = message if len(message) <= 200 else message[:197] + "..."
    return f"{_where(path)}: {message}"


def _schema_reason(instance: Any) -> str | None:
    """Why ``instance`` is not a plan: size limits first, then the schema, stopping at the first failing day
    (the most relevant error of that day is named, as ``jsonschema.best_match`` ranks them)."""
    if (violation := first_violation(instance, gate_limits())) is not None:
        return _reason(*violation)
    plan_ok, day_ok = _fast_validators()
    if (fast := _fast_error(plan_ok, instance)) is None:
        return None  # the compiled validator decides; the other one only explains its verdict
    error = jsonschema.exceptions.best_match(_plan_validator().iter_errors(instance))
    if error is not None:
        return _reason(list(error.absolute_path), error.message)
    for i, day in enumerate(instance):
        if (fast_day := _fast_error(day_ok, day)) is not None:
            error = jsonschema.exceptions.best_match(_day_validator().iter_errors(day))
            if error is not None:
                return _reason([i, *error.absolute_path], error.message)
            return _reason([i, *fast_day.path[1:]], fast_day.message)
    return _reason(list(fast.path[1:]), fast.message)


def parse_json(text: str | bytes, max_chars: int = MAX_ANSWER_CHARS) -> tuple[Any, str | None]:
    """Strict, size-bounded JSON parsing of untrusted text: ``(value, None)`` or ``(None, reason)``."""
    if isinstance(text, bytes):
        if len(text) > 4 * max_chars:  # UTF-8 needs at most 4 bytes a character
            return None, f"answer is {len(text)} bytes, over the {max_chars}-character limit"
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, f"answer is not UTF-8 ({exc.reason} at byte {exc.start})"
    if not isinstance(text, str):
        return None, f"answer is a {type(text).__name__}, not text"
    if len(text) > max_chars:
        return None, f"answer is {len(text)} characters, over the {max_chars} limit"
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys), None
    except RepeatedKey as exc:
        return None, str(exc)[:200]
    except RecursionError:
        return None, "answer JSON is nested too deeply"
    except ValueError as exc:
        return None, f"answer is not valid JSON ({str(exc)[:120]})"


def tidy(days: Any) -> Any:
    """A structured answer with the spacing of its cities and transport fields tidied (``" Rockford "`` is
    ``Rockford``; runs of spaces are one): spacing is form, and a space around a city would otherwise read back
    as another leg. A line break inside a value stays (the gate refuses it: the checker reads one line). Place
    names keep their text (strict reads them spacing-blind; official as upstream does). Anything that is not a
    list of day objects is returned as it is, for the schema to explain."""
    if not isinstance(days, list):
        return days
    out = []
    for day in days:
        if isinstance(day, dict) and any(isinstance(day.get(k), dict) for k in TIDY):
            day = {k: ({f: _SPACES.sub(" ", v.strip()) if isinstance(v, str) else v for f, v in value.items()}
                       if k in TIDY and isinstance(value, dict) else value) for k, value in day.items()}
        out.append(day)
    return out


TIDY = ("city", "transportation")
_SPACES = re.compile(r"[ \t]+")


def gate(answer: Any, max_chars: int = MAX_ANSWER_CHARS) -> GateResult:
    """The schema gate: JSON text (or an already-parsed value) -> upstream plan, or the reason it fails.

    >>> gate('[{"days": 1}]').ok
    False
    >>> gate("not json").reason
    'answer is not valid JSON (Expecting value: line 1 column 1 (char 0))'
    """
    if isinstance(answer, (str, bytes)):
        answer, reason = parse_json(answer, max_chars)
        if reason:
            return GateResult(False, None, reason)
    try:
        answer = tidy(answer)
        reason = _schema_reason(answer)
        if reason:
            return GateResult(False, None, reason)
        plan = to_upstream(answer)
        if (failure := conversion_failure(answer, plan)) is not None:
            return GateResult(False, None, _reason(*failure))
        return GateResult(True, plan, "conforms to the plan schema", answer)
    except Exception as exc:  # noqa: BLE001 - an already-parsed value of any type must still get a reason
        return GateResult(False, None, f"plan cannot be checked ({type(exc).__name__})")
