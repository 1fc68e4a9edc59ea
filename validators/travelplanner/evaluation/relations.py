"""Metamorphic relations of a TravelPlanner reward: edits of a plan that must keep its reward, and edits that must
lower it (``planshape audit``, ``shaping/audit.py``, runs them).

A reward errs two ways: it fails an honest plan for its form, or it pays a false or impossible one. Neither needs a
reference answer to be seen: write a plan another way that says the same (labels in another case, other spacing,
unit words, field order, an optional field left out, a city with or without its state) and the reward must stay
where it was; make it say something false or impossible (a leg it does not state, an item in a city the traveller
is not in that day, a stated value changed, an item repeated) and the reward must drop. Each ``Relation`` is one
such edit, in one or both answer formats: ``strings`` edits the upstream day dicts, ``json`` the structured
(Planner-R1) plan. A plugin adds its own through the ``planshape_audit_relations`` hook (docs/hooks.md).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..checks.trip_timeline import SHUTTLE_MINUTES
from ..plan.formats import from_upstream
from ..query import Query
from ..store.sandbox import SandboxStore
from ..text import duration_minutes, parse_transport

KEEP, LOWER = "keep", "lower"
FORMATS = ("strings", "json")
Edit = tuple[str, Any]  # (what the edit did, the edited plan in the relation's format)


@dataclass(frozen=True)
class Subject:
    """One plan to edit: its upstream days (the query's days), its structured form (None when it has none), the
    query and the database (for places the plan does not name yet)."""

    plan: list[dict[str, Any]]
    query: Query
    store: SandboxStore
    structured: list[dict[str, Any]] | None = field(default=None)


@dataclass(frozen=True)
class Relation:
    """An edit and what it must do to the reward: ``expect`` is ``keep`` (the same reward) or ``lower`` (a lower
    one; checked on plans that pass). ``strings`` and ``json`` yield ``(what, edited plan)`` for a subject in that
    format, nothing when the plan has nothing to edit; either may be None (not applicable to the format)."""

    name: str
    expect: str
    about: str
    strings: Callable[[Subject], Iterable[Edit]] | None = None
    json: Callable[[Subject], Iterable[Edit]] | None = None

    def __post_init__(self) -> None:
        if self.expect not in (KEEP, LOWER):
            raise ValueError(f"relation {self.name!r}: expect must be {KEEP!r} or {LOWER!r}, got {self.expect!r}")
        if self.strings is None and self.json is None:
            raise ValueError(f"relation {self.name!r} edits neither format")

    def edits(self, subject: Subject, fmt: str) -> Iterator[Edit]:
        """The relation's edits of ``subject`` in ``fmt``: each edited plan is a copy, and differs from the plan."""
        edit = self.strings if fmt == "strings" else self.json
        original = subject.plan if fmt == "strings" else subject.structured
        if edit is None or original is None:
            return
        written = json.dumps(original, ensure_ascii=False)
        for what, edited in edit(subject):
            if json.dumps(edited, ensure_ascii=False) != written:  # as written: key order counts
                yield what, edited


# ------------------------------------------------------------------ helpers over the upstream strings


def _copy(subject: Subject) -> list[dict[str, Any]]:
    return copy.deepcopy(subject.plan)


def _transports(plan: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, str]]]:
    """Each day with a transport string the canonical reader reads, and its fields."""
    for day in plan:
        fields = parse_transport(str(day.get("transportation", "")))
        if fields is not None:
            yield day, fields


def _each_transport(subject: Subject, change: Callable[[str, dict[str, str]], str]) -> list[dict[str, Any]]:
    plan = _copy(subject)
    for day, fields in _transports(plan):
        day["transportation"] = change(day["transportation"], fields)
    return plan


def _city_text(text: str, change: Callable[[str], str]) -> str:
    """``text`` with each city it names changed: a ``current_city``, a place's city after its last comma, a
    transport's leg."""
    if m := re.fullmatch(r"from (.+) to (.+)", text):
        return f"from {change(m[1])} to {change(m[2])}"
    if "," not in text:
        return change(text)
    name, _, city = text.rpartition(",")
    return f"{name}, {change(city.strip())}"


PLACES = ("breakfast", "lunch", "dinner", "accommodation")


def _each_city(subject: Subject, change: Callable[[str], str]) -> list[dict[str, Any]]:
    plan = _copy(subject)
    for day in plan:
        for key in ("current_city", *PLACES):
            value = day.get(key)
            if isinstance(value, str) and value.strip() not in ("", "-"):
                day[key] = _city_text(value, change)
        value = day.get("attraction")
        if isinstance(value, str) and value.strip() not in ("", "-"):
            day["attraction"] = "".join(_city_text(p, change) + ";" for p in value.split(";") if p.strip())
        if (fields := parse_transport(str(day.get("transportation", "")))) is not None:
            leg = f"from {fields['from']} to {fields['to']}"
            day["transportation"] = day["transportation"].replace(leg, _city_text(leg, change), 1)
    return plan


def _bare(city: str) -> str:
    return re.sub(r"\(.*\)\s*$", "", city).strip()


def _named(plan: list[dict[str, Any]]) -> set[str]:
    return {p.rsplit(",", 1)[0].strip() for day in plan for key, value in day.items() if isinstance(value, str)
            for p in (value.split(";") if key == "attraction" else [value]) if "," in p}


def _fresh(subject: Subject, plan: list[dict[str, Any]], table: str, written: str) -> str | None:
    """A place of ``written``'s city the plan does not name (a restaurant: the cheapest), written as the plan
    writes the city; None when there is none."""
    used = _named(plan)
    rows = [r for r in subject.store.in_city(table, _bare(written))
            if r.name.strip() not in used and not {",", ";", "\n"} & set(r.name)]
    if table == "restaurants":
        rows.sort(key=lambda r: r.average_cost)
    return f"{rows[0].name.strip()}, {written}" if rows else None


def _legs(plan: list[dict[str, Any]]) -> Iterator[tuple[int, str, str]]:
    for i, day in enumerate(plan):
        if m := re.fullmatch(r"from (.+) to (.+)", str(day.get("current_city", ""))):
            yield i, m[1], m[2]


def _stays(plan: list[dict[str, Any]]) -> list[int]:
    return [i for i, day in enumerate(plan) if isinstance(day.get("current_city"), str)
            and "from" not in day["current_city"] and day["current_city"].strip()]


def _as_json(edits: Callable[[Subject], Iterable[Edit]]) -> Callable[[Subject], Iterator[Edit]]:
    """The structured form of edits made on the upstream strings (those with a structured form)."""
    def structured(subject: Subject) -> Iterator[Edit]:
        for what, plan in edits(subject):
            try:
                yield what, from_upstream(plan)
            except (ValueError, KeyError, TypeError):
                continue  # the edit has no structured form
    return structured


def _json_each(subject: Subject, change: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    plan = copy.deepcopy(subject.structured or [])
    for day in plan:
        change(day)
    return plan


def _json_places(day: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for key in PLACES:
        if isinstance(day.get(key), dict):
            yield day[key]
    yield from (p for p in day.get("attraction") or [] if isinstance(p, dict))


def _json_cities(day: dict[str, Any], change: Callable[[str], str]) -> None:
    city = day.get("city") or {}
    for key in ("from", "to", "stay"):
        if key in city:
            city[key] = change(city[key])
    for place in _json_places(day):
        place["city"] = change(place["city"])
    if isinstance(day.get("transportation"), dict):
        for key in ("from", "to"):
            day["transportation"][key] = change(day["transportation"][key])


# ------------------------------------------------------------------ keep: the same plan written otherwise

_LABELS = ("Flight Number", "Departure Time", "Arrival Time", "Self-driving", "Taxi", "duration", "distance", "cost")


_LABEL = re.compile("|".join(map(re.escape, _LABELS)))


def _label_case(subject: Subject) -> Iterator[Edit]:
    cases: tuple[tuple[str, Callable[[str], str]], ...] = (
        ("in lower case", str.lower), ("in upper case", str.upper), ("capitalised", str.capitalize))
    for what, case in cases:
        def relabel(text: str, _: dict[str, str], change: Callable[[str], str] = case) -> str:
            return _LABEL.sub(lambda m: change(m[0]), text)
        yield f"transport labels {what}", _each_transport(subject, relabel)


def _spacing(subject: Subject) -> Iterator[Edit]:
    yield "a trailing space after each transport", _each_transport(subject, lambda t, _: t + " ")
    yield "two spaces after each comma of a transport", _each_transport(subject, lambda t, _: t.replace(", ", ",  "))
    yield "two spaces inside each transport's 'from A to B'", _each_transport(
        subject, lambda t, f: t.replace(f"from {f['from']} to", f"from {f['from']}  to", 1))


def _spacing_json(subject: Subject) -> Iterator[Edit]:
    yield "a space around every city", _json_each(subject, lambda day: _json_cities(day, lambda c: f" {c} "))

    def names(day: dict[str, Any]) -> None:
        for place in _json_places(day):
            place["name"] = f"{place['name']}  "
    yield "two spaces after every place name", _json_each(subject, names)


def _hours_minutes(text: str, hours: str, mins: str) -> str:
    text = re.sub(r"\b(\d+) hours?\b", lambda m: f"{m[1]} {hours}", text)
    return re.sub(r"\b(\d+) mins?\b", lambda m: f"{m[1]} {mins}", text)


def _unit_words(subject: Subject) -> Iterator[Edit]:
    yield "'minutes' for 'mins'", _each_transport(subject, lambda t, _: _hours_minutes(t, "hours", "minutes"))
    yield "'hrs' for 'hours'", _each_transport(subject, lambda t, _: _hours_minutes(t, "hrs", "mins"))
    yield "a distance in kilometers without a thousands separator", _each_transport(
        subject, lambda t, f: t.replace(f"distance: {f['distance']}", "distance: " + f["distance"].replace(
            ",", "").replace(" km", " kilometers")) if "distance" in f else t)
    yield "a cost in dollars", _each_transport(
        subject, lambda t, f: t.replace(f"cost: {f['cost']}", f"cost: ${f['cost']}") if "cost" in f else t)
    yield "times with seconds", _each_transport(
        subject, lambda t, _: re.sub(r"(Time: \d{1,2}:\d{2})\b", r"\1:00", t))


def _unit_words_json(subject: Subject) -> Iterator[Edit]:
    def words(day: dict[str, Any]) -> None:
        move = day.get("transportation")
        if isinstance(move, dict):
            if "duration" in move:
                move["duration"] = _hours_minutes(move["duration"], "hours", "minutes")
            if "distance" in move:
                move["distance"] = move["distance"].replace(",", "").replace(" km", " kilometers")
    yield "'minutes' for 'mins', kilometers without a thousands separator", _json_each(subject, words)

    def seconds(day: dict[str, Any]) -> None:
        move = day.get("transportation")
        if isinstance(move, dict):
            for key in ("departure_time", "arrival_time"):
                if key in move:
                    move[key] = f"{move[key]}:00"
    yield "times with seconds", _json_each(subject, seconds)


def _field_order(subject: Subject) -> Iterator[Edit]:
    def reorder(text: str, fields: dict[str, str]) -> str:
        leg = f"from {fields['from']} to {fields['to']}"
        if fields["mode"] == "flight":
            parts = [f"Flight Number: {fields['flight_number']}", leg]
            parts += [f"{label}: {fields[key]}" for key, label in (("arrival_time", "Arrival Time"),
                                                                   ("departure_time", "Departure Time"))
                      if key in fields]
        else:
            parts = [text.split(",", 1)[0], leg] + [f"{key}: {fields[key]}" for key in ("cost", "distance", "duration")
                                                     if key in fields]
        return ", ".join(parts)
    yield "a transport's fields in another order", _each_transport(subject, reorder)


def _field_order_json(subject: Subject) -> Iterator[Edit]:
    def reverse(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: reverse(value[k]) for k in reversed(list(value))}
        if isinstance(value, list):
            return [reverse(v) for v in value]
        return value
    yield "every object's keys in reverse order", reverse(copy.deepcopy(subject.structured))


def _optional_dropped(subject: Subject) -> Iterator[Edit]:
    def ground(text: str, fields: dict[str, str]) -> str:
        if fields["mode"] == "flight":
            return text
        return ", ".join([text.split(",", 1)[0], f"from {fields['from']} to {fields['to']}"])

    def flight(text: str, fields: dict[str, str]) -> str:
        if fields["mode"] != "flight":
            return text
        return f"Flight Number: {fields['flight_number']}, from {fields['from']} to {fields['to']}"
    yield "a drive's or taxi's duration, distance and cost left out", _each_transport(subject, ground)
    yield "a flight's times left out", _each_transport(subject, flight)


def _optional_dropped_json(subject: Subject) -> Iterator[Edit]:
    def drop(keys: tuple[str, ...]) -> Callable[[dict[str, Any]], None]:
        def change(day: dict[str, Any]) -> None:
            if isinstance(day.get("transportation"), dict):
                for key in keys:
                    day["transportation"].pop(key, None)
        return change
    yield "a drive's or taxi's duration, distance and cost left out", _json_each(
        subject, drop(("duration", "distance", "cost")))
    yield "a flight's times left out", _json_each(subject, drop(("departure_time", "arrival_time")))


def _with_state(store: SandboxStore) -> Callable[[str], str]:
    def change(city: str) -> str:
        state = store.city_state.get(city.strip())
        return f"{city.strip()}({state})" if state and "(" not in city else city
    return change


def _city_forms(subject: Subject) -> Iterator[Edit]:
    yield "every city without its (State)", _each_city(subject, _bare)
    yield "every city with its own (State)", _each_city(subject, _with_state(subject.store))


def _city_forms_json(subject: Subject) -> Iterator[Edit]:
    yield "every city without its (State)", _json_each(subject, lambda day: _json_cities(day, _bare))
    with_state = _with_state(subject.store)
    yield "every city with its own (State)", _json_each(subject, lambda day: _json_cities(day, with_state))


# ------------------------------------------------------------------ lower: the plan made false or impossible


def _unstated_leg(subject: Subject) -> Iterator[Edit]:
    """Breakfast in the arrival city and dinner back in the departure city of a travel day: the leg three times
    (or a flight twice). Drives the gold plans themselves shuttle (``SHUTTLE_MINUTES``) are left alone."""
    for i, origin, destination in _legs(subject.plan):
        fields = parse_transport(str(subject.plan[i].get("transportation", "")))
        row = subject.store.distance(_bare(origin), _bare(destination))
        minutes = duration_minutes(row.duration) if row is not None and row.duration else None
        if fields is None or (fields["mode"] == "self-driving" and (minutes is None or minutes <= SHUTTLE_MINUTES)):
            continue
        plan = _copy(subject)
        breakfast = _fresh(subject, plan, "restaurants", destination)
        dinner = _fresh(subject, plan, "restaurants", origin)
        if breakfast and dinner:
            plan[i]["breakfast"], plan[i]["dinner"] = breakfast, dinner
            yield f"day {i + 1}: breakfast in {_bare(destination)}, dinner back in {_bare(origin)}", plan
            return


def _item_elsewhere(subject: Subject) -> Iterator[Edit]:
    """A stay day's lunch in the trip's origin, where the traveller is not that day."""
    for i in _stays(subject.plan):
        if _bare(subject.plan[i]["current_city"]) == subject.query.org:
            continue
        plan = _copy(subject)
        lunch = _fresh(subject, plan, "restaurants", subject.query.org)
        if lunch:
            plan[i]["lunch"] = lunch
            yield f"day {i + 1}: lunch in {subject.query.org}", plan
            return


def _later(text: str) -> str:
    h, m = (int(p) for p in text.split(":")[:2])
    return f"{(h + 2) % 24:02d}:{m:02d}"


def _stated_value(subject: Subject) -> Iterator[Edit]:
    done: set[str] = set()
    for i, day in enumerate(subject.plan):
        fields = parse_transport(str(day.get("transportation", "")))
        if fields is None:
            continue
        text = day["transportation"]
        changes = []
        if "departure_time" in fields and "departure" not in done:
            changes.append(("departure", f"Departure Time: {fields['departure_time']}",
                            f"Departure Time: {_later(fields['departure_time'])}"))
        if "duration" in fields and "duration" not in done and (minutes := duration_minutes(fields["duration"])):
            doubled = 2 * minutes
            changes.append(("duration", f"duration: {fields['duration']}",
                            f"duration: {doubled // 60} hours {doubled % 60} mins"))
        if "distance" in fields and "distance" not in done:
            km = fields["distance"].replace(",", "").replace(" km", "")
            if re.fullmatch(r"[0-9.]+", km):
                changes.append(("distance", f"distance: {fields['distance']}", f"distance: {2 * float(km):g} km"))
        if "cost" in fields and "cost" not in done:
            changes.append(("cost", f"cost: {fields['cost']}", f"cost: {int(float(fields['cost']) * 10 + 1)}"))
        for what, old, new in changes:
            plan = _copy(subject)
            plan[i]["transportation"] = text.replace(old, new, 1)
            done.add(what)
            yield f"day {i + 1}: the {what} stated as {new.split(': ', 1)[1]}", plan


def _item_repeated(subject: Subject) -> Iterator[Edit]:
    stays = _stays(subject.plan)
    meals = [(i, key) for i, day in enumerate(subject.plan) for key in ("breakfast", "lunch", "dinner")
             if isinstance(day.get(key), str) and "," in day[key]]
    for i in stays:
        earlier = next(((j, key) for j, key in meals if j < i), None)
        if earlier is not None:
            plan = _copy(subject)
            plan[i]["lunch"] = subject.plan[earlier[0]][earlier[1]]
            yield f"day {i + 1}: lunch at day {earlier[0] + 1}'s {earlier[1]} place", plan
            break
    sights = [(i, p) for i, day in enumerate(subject.plan) if isinstance(day.get("attraction"), str)
              for p in day["attraction"].split(";") if "," in p]
    for i in stays:
        earlier_sight = next(((j, p) for j, p in sights if j < i), None)
        if earlier_sight is not None:
            plan = _copy(subject)
            plan[i]["attraction"] = plan[i]["attraction"].rstrip(";") + ";" + earlier_sight[1].strip() + ";"
            yield f"day {i + 1}: day {earlier_sight[0] + 1}'s sight again", plan
            break


RELATIONS: tuple[Relation, ...] = (
    Relation("label-case", KEEP, "a transport's labels in any case", _label_case),
    Relation("spacing", KEEP, "spaces around and inside fields", _spacing, _spacing_json),
    Relation("unit-words", KEEP, "units as people write them (minutes, hrs, kilometers, $, seconds)", _unit_words,
             _unit_words_json),
    Relation("field-order", KEEP, "a transport's fields (or a JSON object's keys) in another order", _field_order,
             _field_order_json),
    Relation("optional-dropped", KEEP, "a value the format lets a plan leave out, left out", _optional_dropped,
             _optional_dropped_json),
    Relation("city-forms", KEEP, "a city with or without its own (State)", _city_forms, _city_forms_json),
    Relation("unstated-leg", LOWER, "an item that needs a leg the plan does not state", _unstated_leg,
             _as_json(_unstated_leg)),
    Relation("item-elsewhere", LOWER, "an item in a city the traveller is not in that day", _item_elsewhere,
             _as_json(_item_elsewhere)),
    Relation("stated-value", LOWER, "a stated time, duration, distance or cost changed", _stated_value,
             _as_json(_stated_value)),
    Relation("item-repeated", LOWER, "a restaurant or a sight of an earlier day again", _item_repeated,
             _as_json(_item_repeated)),
)
