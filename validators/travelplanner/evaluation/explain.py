"""``planshape explain``: every check's verdict on one plan, with each claim the plan makes and the
sandbox row(s) it was compared with (or why none matched). This is how a reward is debugged by hand.

Input is what a rollout gives: model text (the last ``<answer>`` block counts, or the whole text as JSON),
a structured plan, or an upstream plan (a list of day dicts with ``current_city``). Nothing a model wrote
makes this raise: a claim that cannot be read says so in its row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..checks.modes import Mode, get_mode
from ..checks.registry import COMMONSENSE, HARD
from ..checks.timeline import clock
from ..checks.trip import MEALS, Trip
from ..checks.trip_timeline import trip_timeline
from ..checks.verdicts import PlanResult, as_days, check_plan
from ..plan.answer import OPEN, extract_answer
from ..plan.formats import gate
from ..query import Query
from ..store.sandbox import SandboxStore, ground_cost
from ..text import attraction_items, before_parenthesis, extract_from_to, name_city, parse_transport

SANDBOX, CITY = "is_valid_information_in_sandbox", "is_valid_information_in_current_city"
# The checks that read each field (the claims table of docs/modes.md, by field)
FIELD_CHECKS = {
    "days": ("is_not_absent",),
    "current_city": ("is_reasonable_visiting_city", "is_not_absent", CITY),
    "transportation": (SANDBOX, CITY, "is_valid_transportation", "valid_cost", "valid_transportation"),
    **dict.fromkeys(MEALS, (SANDBOX, CITY, "is_valid_restaurants", "valid_cuisine", "valid_cost")),
    "attraction": (SANDBOX, CITY, "is_valid_attractions", "is_not_absent"),
    "accommodation": (SANDBOX, CITY, "is_valid_accommodation", "valid_room_rule", "valid_room_type", "valid_cost"),
}
LABELS = {c.key: c.label for c in (*COMMONSENSE, *HARD)}


@dataclass(frozen=True)
class Claim:
    day: int
    field: str
    claim: str
    compared_with: str
    checks: tuple[str, ...]


@dataclass
class Explanation:
    """One plan's verdicts and claims; ``gate`` is the schema gate's reason when the answer never reached
    the checks (then there are no verdicts)."""

    mode: str
    gate: str
    result: PlanResult | None = None
    claims: list[Claim] = field(default_factory=list)
    timeline: list[dict[str, Any]] = field(default_factory=list)  # each day's schedule, or why none fits (Q19)

    def to_dict(self) -> dict[str, Any]:
        checks = []
        if self.result is not None:
            for key, verdict in {**self.result.commonsense, **(self.result.hard or {})}.items():
                checks.append({"key": key, "label": LABELS.get(key, key), **verdict.to_dict(),
                               "claims": [i for i, c in enumerate(self.claims) if key in c.checks]})
        return {"mode": self.mode, "gate": self.gate,
                "final_pass": bool(self.result and self.result.final_pass),
                "note": self.result.note if self.result else "", "checks": checks,
                "claims": [{"day": c.day, "field": c.field, "claim": c.claim, "compared_with": c.compared_with,
                            "checks": list(c.checks)} for c in self.claims],
                "timeline": self.timeline}


def explain(answer: Any, query: Query | Mapping[str, Any], store: SandboxStore, mode: str | Mode = "strict"
            ) -> Explanation:
    """Check ``answer`` against ``query`` and say, per check and per claim, what was compared."""
    mode = get_mode(mode)
    query = query if isinstance(query, Query) else Query.from_record(query)
    plan, reason = _plan(answer)
    if plan is None:
        return Explanation(mode.name, reason)
    result = check_plan(plan, query, store, mode)
    return Explanation(mode.name, reason, result, claims(plan, query, store, mode), timeline(plan, query, store, mode))


def timeline(plan: list[Any], query: Query, store: SandboxStore, mode: Mode) -> list[dict[str, Any]]:
    """Each day's timeline (strict Q19): the schedule found, or the first item that cannot fit and why; the
    days after the first that does not fit are not shown (their start depends on it)."""
    if mode.two_places_at_once:
        return []
    try:
        days = trip_timeline(Trip(query, plan[: query.days], store, mode))
    except Exception as exc:  # noqa: BLE001 - a plan the checks cannot read is described, not raised
        return [{"day": 0, "schedule": [], "failure": None, "note": f"cannot be timed ({type(exc).__name__})"}]
    return [{"day": d.number,
             "schedule": [{"start": clock(s.start), "end": clock(s.end), "what": s.what}
                          for s in (d.schedule.steps if d.schedule else ())],
             "failure": d.failure, "note": d.note} for d in days]


def _plan(answer: Any) -> tuple[list[Any] | None, str]:
    """The upstream plan to check, or None with the gate's reason."""
    if isinstance(answer, str) and OPEN in answer:
        answer = extract_answer(answer)
        if answer is None:
            return None, "no complete <answer>...</answer> block"
    days = as_days(answer)
    if days and all(isinstance(d, dict) and "current_city" in d for d in days):
        return days, "an upstream plan (no schema gate)"
    gated = gate(answer)
    return (gated.plan, gated.reason) if gated.ok else (None, gated.reason)


def claims(plan: list[Any], query: Query, store: SandboxStore, mode: Mode) -> list[Claim]:
    """Every field of the plan's days with what the sandbox holds for it; later days are listed too. Strict
    (Q22 closed) shows what its reader read: the mode, the leg and each value stated, the place and its row."""
    out = []
    trip = None if mode.exact_spelling else Trip(query, plan[: query.days], store, mode)
    for i, unit in enumerate(plan):
        if not isinstance(unit, dict):
            out.append(Claim(i + 1, "day", repr(unit)[:200], "not a day object", ("is_not_absent",)))
            continue
        for key, value in unit.items():
            checks = FIELD_CHECKS.get(key, ("is_not_absent",)) if i < query.days else ("is_not_absent",)
            try:
                if i >= query.days:
                    seen = "after the trip"
                elif trip is not None and key in ("transportation", *MEALS, "attraction", "accommodation"):
                    seen = _read_compared_with(trip, key, value, i, trip.days[i])
                else:
                    seen = _compared_with(key, value, i, query, store, mode)
            except Exception as exc:  # noqa: BLE001 - a field nothing can read is described, not raised
                seen = f"cannot be read ({type(exc).__name__})"
            out.append(Claim(i + 1, str(key), value if isinstance(value, str) else repr(value), seen, checks))
    return out


def _compared_with(key: str, value: Any, i: int, query: Query, store: SandboxStore, mode: Mode) -> str:
    if not isinstance(value, str) or value.strip() in ("", "-"):
        return "nothing planned" if key != "days" else f"position {i + 1}"
    if key == "current_city":
        origin, destination = extract_from_to(value) if "from" in value else (None, value)
        return "; ".join(_city(store, c) for c in (origin, destination) if c is not None)
    if key == "transportation":
        return _transport(value, i, query, store, mode)
    exact = not mode.substring_match
    if key in MEALS:
        return _place(store, "restaurants", value, exact)
    if key == "accommodation":
        return _place(store, "accommodations", value, exact)
    if key == "attraction":
        items = attraction_items(value, mode.drop_last_attraction)
        return " | ".join(_place(store, "attractions", item, exact) for item in items) or "no attraction named"
    return "no check reads this field"


TABLE_OF = {**dict.fromkeys(MEALS, "restaurants"), "attraction": "attractions", "accommodation": "accommodations"}


def _read_compared_with(trip: Trip, key: str, value: Any, i: int, unit: Any) -> str:
    """What strict's reader read in a field, and the rows it was compared with."""
    if not isinstance(value, str) or not trip.filled(value):
        return "nothing planned"
    if key == "transportation":
        read = trip.transport(value)
        if read is None:
            return "too long to be a transport"
        modes = ", ".join((*read.modes, *read.other_modes)) or "no mode"
        legs = "; ".join(f"{a or '(the day)'} to {b}" for a, b in read.legs) or "the day's leg"
        values = ", ".join(f"{k.replace('_', ' ')} {v.text}" for k, v in read.values.items())
        head = f"read: {modes}, {legs}" + (f", {values}" if values else "")
        stated_from, stated_to = read.leg if read.legs else (None, None)
        day_from, day_to = trip.from_to(unit.get("current_city", ""))
        origin, destination = stated_from or day_from, stated_to or day_to
        if read.mode is None or origin is None or destination is None:
            return head
        return _leg(trip.store, trip.mode, trip.query, i, read.mode, str(read.value("flight_number")),
                    trip.city(origin), trip.city(destination)) + f" ({head})"
    table = TABLE_OF[key]
    items = trip.items(value) if key == "attraction" else [value]
    out = []
    for item in items:
        place = trip.place(item)
        stated = "" if place is None or place.plain else f" (states more: {_stated(place)})"
        name = place.name if place is not None else name_city(item)[0]
        rows = trip.places(table, item, unit)
        out.append(_rows(trip.store, table, rows, name, trip.item_city(item, unit) or "no city", True) + stated)
    return " | ".join(out) or "no attraction named"


def _stated(read: Any) -> str:
    parts = [f"{k} {v}" for k, v in (("state", read.state), ("cost", read.cost), ("room type", read.room_type))
             if v is not None]
    parts += [f"cuisine {c}" for c in read.cuisines] + [f"rule {r}" for r in (*read.house_rules, *read.allows)]
    parts += [f"{k.replace('_', ' ')} {v:g}" for k, v in read.numbers] + [f"remark {u!r}" for u in read.unread]
    return ", ".join(parts)


def _city(store: SandboxStore, text: str) -> str:
    city = before_parenthesis(text).strip()
    state = store.city_state.get(city)
    return f"{city} ({state})" if state else f"{city!r} is not in the city set"


def _place(store: SandboxStore, table: str, text: str, exact: bool) -> str:
    name, city = name_city(text)
    return _rows(store, table, store.places(table, name, city, exact=exact), name, city, exact)


def _rows(store: SandboxStore, table: str, rows: list, name: str, city: str, exact: bool) -> str:
    if not rows:
        where = city if city in store.city_state else f"{city!r} (not in the city set)"
        return f"no {table[:-1]} named {name!r} in {where}" + (" (exact name)" if exact else "")
    row, more = rows[0], f" (+{len(rows) - 1} more rows)" if len(rows) > 1 else ""
    if table == "restaurants":
        return f"{row.name}, {row.city}: ${row.average_cost:g} a person, {row.cuisines}{more}"
    if table == "accommodations":
        return (f"{row.name}, {row.city}: ${row.price:g} a night, {row.room_type}, at least "
                f"{row.minimum_nights:g} nights, up to {row.maximum_occupancy:g} guests, {row.house_rules}{more}")
    return f"{row.name}, {row.city}{more}"


def _transport(value: str, i: int, query: Query, store: SandboxStore, mode: Mode) -> str:
    fields = parse_transport(value)
    origin, destination = (fields["from"], fields["to"]) if fields else extract_from_to(value)
    if origin is None or destination is None:
        return "no 'from A to B' leg in the text"
    origin, destination = before_parenthesis(origin).strip(), before_parenthesis(destination).strip()
    if fields is None:
        lead = "not a canonical flight, self-driving or taxi string; "
    else:
        lead = ""
    low = value.lower()
    kind = "flight" if "flight number" in low else "self-driving" if "self-driving" in low else "taxi"
    number = (fields["flight_number"] if fields else value.split("Flight Number: ")[-1].split(",")[0]) \
        if kind == "flight" else ""
    return lead + _leg(store, mode, query, i, kind, number, origin, destination)


def _leg(store: SandboxStore, mode: Mode, query: Query, i: int, kind: str, number: str, origin: str,
         destination: str) -> str:
    """The row a leg was compared with: its flight (number, route, date), or its distance-table row."""
    if kind == "flight":
        date = None if mode.ignore_flight_date or i >= len(query.date) else query.date[i]
        row = store.flight_on_route(number, origin, destination, date)
        if row is None:
            other = store.first_flight(number)
            elsewhere = (f"; {number} flies {other.origin} to {other.destination} on {other.flight_date}"
                         if other else f"; no flight is numbered {number!r}")
            return f"no flight {number} from {origin} to {destination} on {date or 'any date'}{elsewhere}"
        return (f"{row.flight_number} {row.origin} to {row.destination} on {row.flight_date}: departs "
                f"{row.dep_time}, arrives {row.arr_time}, ${row.price:g} a person")
    leg = store.distance(origin, destination)
    if leg is None:
        return f"no distance row from {origin} to {destination}"
    cost = ground_cost(store, origin, destination, kind)
    charged = f"charged ${cost} a {'car' if kind == 'self-driving' else 'taxi'}" if cost is not None else "unusable"
    return f"{origin} to {destination}: {leg.duration}, {leg.distance}; {charged}"


def render(explanation: Explanation, console: Any) -> None:
    """The two tables: verdicts (with the reasons), then claims (with what each was compared with)."""
    from rich.table import Table

    console.print(f"mode: {explanation.mode}; answer: {explanation.gate}")
    data = explanation.to_dict()
    if explanation.result is None:
        console.print("[red]not checked[/red]: the answer did not pass the schema gate")
        return
    verdicts = Table(title=f"checks (final pass: {data['final_pass']})")
    for column in ("check", "verdict", "reason"):
        verdicts.add_column(column)
    colour = {"pass": "green", "fail": "red", "n/a": "dim"}
    for check in data["checks"]:
        verdicts.add_row(check["label"], f"[{colour[check['verdict']]}]{check['verdict']}[/]", check["reason"])
    console.print(verdicts)
    if data["note"]:
        console.print(f"[dim]{data['note']}[/dim]")
    table = Table(title="claims and the sandbox rows they were compared with")
    for column in ("day", "field", "claim", "compared with", "checks"):
        table.add_column(column)
    for claim in explanation.claims:
        table.add_row(str(claim.day), claim.field, claim.claim, claim.compared_with,
                      ", ".join(LABELS.get(k, k) for k in claim.checks))
    console.print(table)
    if explanation.timeline:
        days = Table(title="each day's timeline (strict Q19): the schedule found, or why none fits")
        for column in ("day", "schedule"):
            days.add_column(column)
        for day in explanation.timeline:
            lines = [f"{s['start']}-{s['end']} {s['what']}" for s in day["schedule"]]
            text = (f"[red]no schedule fits[/red]: {day['failure']}" if day["failure"] else
                    "\n".join(lines) or f"[dim]{day['note'] or 'nothing to schedule'}[/dim]")
            days.add_row(str(day["day"]), text)
        console.print(days)
