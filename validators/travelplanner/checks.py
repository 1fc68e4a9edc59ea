"""The 8 commonsense and 5 hard TravelPlanner checks, in ``official`` or ``strict`` mode.

Each check takes a ``Trip`` and returns ``(True | False | None, reason)``; None means not applicable.
The logic follows the upstream evaluator (notes §4-§5) step by step, so that an input upstream cannot
evaluate raises here at the same point; ``evaluate.check_plan`` turns that into a failing verdict.
Mode flags (``modes.Mode``) switch each known quirk on (official) or off (strict).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .modes import Mode
from .plan_memo import PlanMemo
from .query import Query
from .sandbox import SandboxStore, ground_cost, vehicles
from .text import NO_MORE_DAYS, flight_number

Outcome = tuple[bool | None, str]
MEALS = ("breakfast", "lunch", "dinner")
DAY_KEYS = ("transportation", "breakfast", "lunch", "dinner", "attraction", "accommodation")


@dataclass(frozen=True)
class Trip:
    """One plan under check: the first ``query.days`` day dicts, the query, the database and the mode.

    ``memo`` keeps the plan's parses and place rows; passes over one plan may share it (the monitor does).
    """

    query: Query
    days: list[Any]
    store: SandboxStore
    mode: Mode
    memo: PlanMemo = field(default=None, compare=False, repr=False)  # type: ignore[assignment] - set in __post_init__

    def __post_init__(self) -> None:
        if self.memo is None:
            object.__setattr__(self, "memo", PlanMemo(self.store))
        elif self.memo.store is not self.store:
            raise ValueError("a PlanMemo serves the store it was built for: pass that store")

    def city(self, text: Any) -> str:
        """A city name with its ``(State)`` removed; strict mode also strips spaces (Q10)."""
        return self.memo.city(text, not self.mode.unstripped_parenthesis)

    def from_to(self, text: str) -> tuple[str, str] | tuple[None, None]:
        """``extract_from_to``, memoised: checks parse the same ``current_city`` several times."""
        return self.memo.from_to(text)

    def route(self, text: str) -> tuple[str, str]:
        """Both cities of a ``from A to B`` text; raises TypeError when there is none (upstream crash)."""
        origin, destination = self.memo.from_to(text)
        return self.city(origin), self.city(destination)

    def items(self, attraction: str) -> list[str]:
        return self.memo.items(attraction, self.mode.drop_last_attraction)

    def places(self, table: str, text: str) -> list:
        """Database rows named by a ``Name, City`` plan item (memoised: checks look items up repeatedly)."""
        return self.memo.places(table, text, not self.mode.substring_match)

    def flight_date(self, day: int) -> str | None:
        """The date a day's flight must fly on: None (any date) in official mode (Q7)."""
        if self.mode.ignore_flight_date or day >= len(self.query.date):
            return None
        return self.query.date[day]

    def same(self, text: str) -> str:
        """The key under which two plan items count as a repeat (Q4: the raw string, or ``normalised``)."""
        return text if self.mode.exact_repeats else self.memo.parse(normalised, text)

    def row(self, table: str, text: Any) -> tuple[str, str, str] | None:
        """The database row a place item names, as (table, name, city), unless Q11 is open or none matches:
        ``X, City``, ``X, City(S1)`` and ``X , City`` all name ``X`` in ``City``."""
        if self.mode.same_place_by_text:
            return None
        rows = self.places(table, text)
        return (table, rows[0].name.strip(), rows[0].city) if rows else None

    def filled(self, value: Any) -> bool:
        """Whether a field holds something to check: upstream's truthy-and-not-``-``; strict also takes
        blank text (``" "``, ``" - "``) as empty (Q15)."""
        if not value or value == "-":  # ``filled``, inlined: the checks ask it for every field
            return False
        return self.mode.blank_fields_count or not (isinstance(value, str) and value.strip() in ("", "-"))

    def absent(self, value: Any) -> bool:
        """Complete Information's test for a missing field: only ``""`` and ``-`` upstream; strict adds null
        and blank values (Q15)."""
        if self.mode.blank_fields_count:
            return value in ("", "-")
        return not self.filled(value)

    def item_city(self, text: str) -> str:
        """The city a ``Name, City`` item is in: the city its database rows are looked up in."""
        return self.memo.name_city(text)[1]


def filled(value: Any) -> bool:
    """Upstream's guard before reading a field: truthy and not ``-``."""
    return bool(value) and value != "-"


def normalised(text: str) -> str:
    """Text with whitespace collapsed, case folded, compatibility forms unified (NFKC: full-width letters)
    and invisible format characters (zero-width spaces) dropped."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", "".join(c for c in text if unicodedata.category(c) != "Cf"))
    return " ".join(text.split()).casefold()


class Seen:
    """Places met so far. Text keys go in a dict, so a long attraction list is checked in linear time;
    unhashable ones (a JSON list or object, which upstream compares with ``==``) in a short list."""

    def __init__(self) -> None:
        self._keys: dict[Any, Any] = {}
        self._other: list[tuple[Any, Any]] = []
        self._rows: dict[tuple[str, str, str], tuple[str, Any]] = {}

    def add(self, key: Any, item: Any, row: tuple[str, str, str] | None = None) -> Any:
        """The item first met under ``key`` or (Q11) naming ``row``, or ``_NEW`` after recording ``item``.

        A row repeats only when its texts differ beyond ``normalised`` (a suffix after the city, a space
        before the comma): whitespace and case variants are quirk 4's, so each quirk flag closes its own.
        """
        first = self._find(key)
        if first is not _NEW:
            return first
        if row is not None:
            text = normalised(item)
            seen_text, first = self._rows.setdefault(row, (text, item))
            if seen_text != text:
                return first
        try:
            self._keys[key] = item
        except TypeError:  # unhashable
            self._other.append((key, item))
        return _NEW

    def _find(self, key: Any) -> Any:
        try:
            return self._keys.get(key, _NEW)
        except TypeError:  # unhashable
            return next((first for other, first in self._other if other == key), _NEW)


_NEW = object()


# ---------------------------------------------------------------- commonsense


def is_reasonable_visiting_city(trip: Trip) -> Outcome:
    q, cities = trip.query, []
    for i, unit in enumerate(trip.days):
        text = unit["current_city"]
        if "from" in text:
            first, second = trip.route(text)
            if i == 0 and first != q.org:
                return False, f"The first day's city should be {q.org}."
            cities += [first, second]
        else:
            cities.append(trip.city(text))
    if not trip.mode.route_may_skip_origin and cities and cities[0] != q.org:
        return False, f"The first day's city should be {q.org}: the trip must leave from and return to it."
    if cities[0] != cities[-1]:
        return False, "The trip should be a closed circle."
    if not valid_city_sequence(cities):
        return False, "The city sequence is invalid."
    for idx, city in enumerate(cities):
        if city not in trip.store.city_state:
            return False, f"{city} is not a valid city."
        inner = idx not in (0, len(cities) - 1)
        if inner and q.days > 3 and trip.store.city_state[city] != q.dest:
            return False, f"{city} is not in {q.dest}."
        if inner and q.days <= 3 and not trip.mode.any_city_on_3_days and city != q.dest:
            return False, f"{city} is not the destination {q.dest}."
    return True, "The route is a closed circle through valid cities."


def valid_city_sequence(cities: list[str]) -> bool:
    """At least 3 entries; no city comes back after its run, but the ends; no inner run of length 1."""
    if len(cities) < 3:
        return False
    seen: set[str] = set()
    i, last = 0, len(cities) - 1
    while i < len(cities):
        city = cities[i]
        if city in seen and i not in (0, last):
            return False
        run = 0
        while i < len(cities) and cities[i] == city:
            run += 1
            i += 1
        if run == 1 and 0 < i - 1 < last:
            return False
        seen.add(city)
    return True


def _repeated(trip: Trip, message: str, item: Any, first: Any) -> str:
    """Upstream's message; strict names the place and, when the text differs, its first mention (Q11)."""
    if trip.mode.same_place_by_text or item == first:
        return message
    return f"{message[:-1]} (the same place as {first!r})."


def is_valid_restaurants(trip: Trip) -> Outcome:
    seen = Seen()
    for i, unit in enumerate(trip.days):
        for meal in MEALS:
            if meal in unit and trip.filled(unit[meal]):
                value = unit[meal]
                first = seen.add(trip.same(value), value, trip.row("restaurants", value))
                if first is not _NEW:
                    named = meal == "lunch" or not trip.mode.same_place_by_text  # upstream names it at lunch only
                    what = f"{meal} {value}" if named else meal
                    return False, _repeated(trip, f"The restaurant in day {i + 1} {what} is repeated.", value, first)
    return True, "No restaurant is repeated."


def is_valid_attractions(trip: Trip) -> Outcome:
    seen = Seen()
    for i, unit in enumerate(trip.days):
        if "attraction" in unit and trip.filled(unit["attraction"]):
            for item in trip.items(unit["attraction"]):
                first = seen.add(trip.same(item), item, trip.row("attractions", item))
                if first is not _NEW:
                    return False, _repeated(trip, f"The attraction '{item}' in day {i + 1} is repeated.", item, first)
    return True, "No attraction is repeated."


def is_valid_accommodation(trip: Trip) -> Outcome:
    stays: list[Any] = []
    for unit in trip.days:
        if "accommodation" not in unit:
            return False, "No Accommodation Info."
        stays.append(unit["accommodation"])
    if trip.mode.same_place_by_text:
        runs = consecutive_runs(stays)
    else:  # Q11: consecutive nights at one listing are one stay, however its name is written
        runs = consecutive_runs(stays, [(trip.row("accommodations", v) or v) if not trip.absent(v) else v
                                        for v in stays])
    for value, nights in runs:
        if trip.absent(value):
            continue
        rows = trip.places("accommodations", value)
        applies = len(rows) == 1 if trip.mode.substring_match else len(rows) >= 1
        if applies and nights < rows[0].minimum_nights:
            return False, f"The accommodation {value} do not obey the minumum nights rule."
    return True, "Every stay meets its minimum nights."


def consecutive_runs(values: list[Any], keys: list[Any] | None = None) -> list[tuple[Any, int]]:
    """``(first value, length)`` of every run of equal consecutive values (or of equal ``keys``)."""
    runs: list[tuple[Any, int]] = []
    run_key: Any = None
    for value, key in zip(values, values if keys is None else keys, strict=True):
        if runs and key == run_key:  # upstream compares each value with the run's first one
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((value, 1))
            run_key = key
    return runs


TRANSPORT_WORDS = ("flight", "self-driving", "taxi")


def _modes_named(value: str) -> list[str]:
    low = value.lower()
    return [word for word in TRANSPORT_WORDS if word in low]


def is_valid_transportation(trip: Trip) -> Outcome:
    first = trip.days[0]["transportation"]
    if not trip.filled(first):
        return False, "The transportation in day 1 should not be empty."
    kinds = [trip.memo.transport_kind(first)]
    for i, unit in enumerate(trip.days):
        if "transportation" in unit and trip.filled(unit["transportation"]):
            value = unit["transportation"]
            if not trip.mode.mixed_transport_words and len(named := trip.memo.parse(_modes_named, value)) > 1:
                return False, f"The transportation in day {i + 1} names more than one mode ({', '.join(named)})."
            kinds.append(trip.memo.transport_kind(value))
    if ("Self-driving" in kinds and "Flight" in kinds) or ("Taxi" in kinds and "Self-driving" in kinds):
        return False, "The transportation is conflicting."
    return True, "The transportation modes do not conflict."


def _in_cities(trip: Trip, value: Any, cities: Any) -> bool:
    """Whether a plan item is in one of the day's cities: a city's name appears in its text (Q12), or its own
    city is one of them. With Q1 open a stay day's "cities" are the characters of one name, as upstream's."""
    if isinstance(cities, str) and isinstance(value, str):
        return not set(cities).isdisjoint(value)  # per character (Q1), in linear time
    if trip.mode.city_by_substring or isinstance(cities, str):
        return any(city in value for city in cities)
    return trip.item_city(value) in cities


def _not_in_city(trip: Trip, message: str, value: Any, cities: Any) -> str:
    if trip.mode.city_by_substring or isinstance(cities, str):
        return message
    return f"{message[:-1]}: {value!r} is in {trip.item_city(value)!r}, not in {' or '.join(cities)}."


def _transport_in_city(trip: Trip, i: int, text: str, value: Any, cities: Any) -> str | None:
    """Upstream: every city of the day appears in the transport text. Strict (Q12) also wants the
    transport's own leg, when it names one, to be the day's leg: the leg checked and charged is the leg
    travelled."""
    message = f"The transportation in day {i + 1} is invalid city choice."
    if isinstance(cities, str) and isinstance(value, str):
        if not set(cities) <= set(value):  # per character (Q1), in linear time
            return message
    elif any(city not in value for city in cities):
        return message
    if trip.mode.city_by_substring or isinstance(cities, str):
        return None
    origin, destination = trip.from_to(value)
    if origin is None or destination is None:
        return None  # the leg is read from current_city
    leg, day = (trip.city(origin), trip.city(destination)), (cities[0], cities[-1])
    if leg == day:
        return None
    plan = f"goes from {day[0]} to {day[1]}" if "from" in text else f"stays in {day[0]}"
    return f"{message[:-1]}: it goes from {leg[0]} to {leg[1]}, but the day {plan}."


def is_valid_information_in_current_city(trip: Trip) -> Outcome:
    for i, unit in enumerate(trip.days):
        text = unit["current_city"]
        if "from" in text:
            cities: Any = list(trip.route(text))
        elif trip.mode.stay_day_chars:
            cities = trip.memo.before_parenthesis(text)  # a string: every test below runs per character (Q1)
        else:
            cities = [trip.city(text)]
        if "transportation" in unit and trip.filled(unit["transportation"]):
            failure = _transport_in_city(trip, i, text, unit["transportation"], cities)
            if failure:
                return False, failure
        for meal in MEALS:
            if meal in unit and trip.filled(unit[meal]) and not _in_cities(trip, unit[meal], cities):
                return False, _not_in_city(trip, f"The {meal} in day {i + 1} is invalid city choice.", unit[meal],
                                           cities)
        if "attraction" in unit and trip.filled(unit["attraction"]):
            for item in trip.items(unit["attraction"]):
                if not _in_cities(trip, item, cities) and not _day_trip(trip, text, item):
                    return False, _not_in_city(trip, f"The attraction in day {i + 1} is invalid city choice.", item,
                                               cities)
        if "accommodation" in unit and trip.filled(unit["accommodation"]):
            stay = unit["accommodation"]
            last = [cities[-1]] if isinstance(cities, list) else cities[-1]  # upstream: the last character (Q1)
            if not _in_cities(trip, stay, last):
                return False, _not_in_city(trip, f"The accommodation in day {i + 1} is invalid city choice.", stay,
                                           last)
    return True, "Every item is in the day's city."


def _day_trip(trip: Trip, current_city: str, item: str) -> bool:
    """Strict mode lets a stay day visit attractions in another city of the same state (a day trip).

    The official checker accepts any city on stay days (Q1); strict requires the current city for meals
    and accommodation, but a train gold plan (Seattle -> Texas, 7 days) visits San Angelo attractions
    while staying in San Antonio, so same-state attractions stay allowed.
    """
    if trip.mode.stay_day_chars or "from" in current_city:
        return False
    states = trip.store.city_state
    here = states.get(trip.city(current_city))
    return here is not None and states.get(trip.memo.name_city(item)[1]) == here


def is_valid_information_in_sandbox(trip: Trip) -> Outcome:
    for i, unit in enumerate(trip.days):
        value = unit["transportation"]
        if trip.filled(value):
            failure = _transport_in_sandbox(trip, i, unit, value)
            if failure:
                return False, failure
        for meal in MEALS:
            if meal in unit and trip.filled(unit[meal]) and not trip.places("restaurants", unit[meal]):
                return False, f"The {meal} in day {i + 1} is invalid in the sandbox."
        if "attraction" in unit and trip.filled(unit["attraction"]):
            for item in trip.items(unit["attraction"]):
                if not trip.places("attractions", item):
                    return False, f"The attraction {item} in day {i + 1} is invalid in the sandbox."
        if "accommodation" in unit and trip.filled(unit["accommodation"]):
            if not trip.places("accommodations", unit["accommodation"]):
                return False, f"The accommodation in day {i + 1} is invalid in the sandbox."
    return True, "Every item exists in the sandbox."


def _leg(trip: Trip, unit: dict, value: str) -> tuple[str | None, str | None]:
    """The leg's cities from the transport text, else from ``current_city`` (upstream's fallback)."""
    origin, destination = trip.from_to(value)
    if origin is None or destination is None:
        origin, destination = trip.from_to(unit["current_city"])
    return origin, destination


def _transport_in_sandbox(trip: Trip, i: int, unit: dict, value: str) -> str | None:
    origin, destination = _leg(trip, unit, value)
    low = value.lower()
    if not trip.mode.mixed_transport_words and len(named := trip.memo.parse(_modes_named, value)) > 1:
        return f"The transportation in day {i + 1} names more than one mode ({', '.join(named)})."
    if "flight number" in low:
        if origin is None or destination is None:
            raise ValueError(f"The transportation {value} in day {i + 1} can not be parsed.")
        number, leg = flight_number(value), (trip.city(origin), trip.city(destination))
        if trip.store.flight_on_route(number, *leg, trip.flight_date(i)) is None:
            return f"The flight number in day {i + 1} is invalid in the sandbox."
        return None
    if "self-driving" in low or "taxi" in low:
        if origin is None or destination is None:
            origin = destination = "-"
        mode = "self-driving" if "self-driving" in low else "taxi"
        if ground_cost(trip.store, trip.city(origin), trip.city(destination), mode) is None:
            return f"The {mode} in day {i + 1} is invalid in the sandbox."
        return None
    if not trip.mode.unchecked_transport:
        return f"The transportation in day {i + 1} is not a flight, self-driving or taxi."
    return None


def is_not_absent(trip: Trip) -> Outcome:
    q = trip.query
    present = sum(1 for unit in trip.days if unit != {} and unit["current_city"] != NO_MORE_DAYS)
    if present != q.days:
        return False, "Invalid Days"
    if not _visiting_city_number(trip):
        return False, "Invalid City Number"
    total = 0
    for i, unit in enumerate(trip.days):
        for key in DAY_KEYS:
            if key not in unit:
                return False, f"No {key.capitalize()} Info."
        text = unit["current_city"]
        if ("from " in text or "to " in text) and trip.absent(unit["transportation"]):
            return False, f"No transportation in day {i + 1} is not allowed."
        if ("from " not in text and " to " not in text) and _no_attraction(trip, unit["attraction"]):
            return False, f"No attaction in day {i + 1} is not allowed."
        if i != q.days - 1 and trip.absent(unit["accommodation"]):
            return False, f"No accommodation in day {i + 1} is not allowed."
        if any(trip.absent(unit[meal]) for meal in MEALS) and "from " not in text:
            return False, f"No meal in day {i + 1} is not allowed."
        total += sum(1 for key in unit if filled(unit[key]))
    if total * 1.0 / (6 * q.days) < 0.5:
        return False, "The absent information is more than 50%."
    return True, "Every required field is filled."


def _no_attraction(trip: Trip, value: Any) -> bool:
    """Strict (Q15) also wants one attraction named: ``";"`` or ``" ; "`` names none."""
    if trip.absent(value):
        return True
    return not trip.mode.blank_fields_count and isinstance(value, str) and not trip.items(value)


def _visiting_city_number(trip: Trip) -> bool:
    q, cities = trip.query, set()
    for i, unit in enumerate(trip.days):
        text = unit["current_city"]
        if "from" in text:
            first, second = trip.route(text)
            if i == 0 and first != q.org:
                return False
            cities.update((first, second))
        else:
            cities.add(trip.city(text))
    cities.discard(q.org)
    return len(cities) == q.visiting_city_number


# ---------------------------------------------------------------- hard


def total_cost(trip: Trip) -> float:
    """The upstream cost model (notes §5.1): flights × people, cars/taxis per vehicle, meals × people,
    rooms per night; unmatched items add nothing."""
    q, total = trip.query, 0.0
    for i, unit in enumerate(trip.days):
        value = unit["transportation"]
        if trip.filled(value):
            origin, destination = _leg(trip, unit, value)
            if origin is not None and destination is not None:
                low = value.lower()
                if "flight number" in low:
                    flight = _priced_flight(trip, i, value, origin, destination)
                    if flight is not None:
                        total += flight.price * q.people_number
                elif "self-driving" in low:
                    total += ground_cost(trip.store, trip.city(origin), trip.city(destination), "self-driving") \
                        * vehicles(q.people_number, 5)
                elif "taxi" in low:
                    total += ground_cost(trip.store, trip.city(origin), trip.city(destination), "taxi") \
                        * vehicles(q.people_number, 4)
        for meal in MEALS:
            if trip.filled(unit[meal]):
                rows = trip.places("restaurants", unit[meal])
                if rows:
                    total += rows[0].average_cost * q.people_number
        if trip.filled(unit["accommodation"]):
            rows = trip.places("accommodations", unit["accommodation"])
            if rows:
                total += rows[0].price * vehicles(q.people_number, rows[0].maximum_occupancy)
    return total


def _priced_flight(trip: Trip, i: int, value: str, origin: str, destination: str):
    number = flight_number(value)
    if trip.mode.substring_match:
        return trip.store.first_flight(number)  # Q3: the first row with that number, any route
    return trip.store.flight_on_route(number, trip.city(origin), trip.city(destination), trip.flight_date(i))


def valid_cost(trip: Trip) -> Outcome:
    cost, budget = total_cost(trip), trip.query.budget
    if cost <= budget:
        return True, f"The total cost {cost:g} is within the budget {budget:g}."
    return False, f"The total cost {cost:g} exceeds the budget {budget:g}."


HOUSE_RULE_TEXT = {
    "smoking": "No smoking",
    "parties": "No parties",
    "children under 10": "No children under 10",
    "visitors": "No visitors",
    "pets": "No pets",
}
ROOM_TYPE_TEXT = {"shared room": "Shared room", "private room": "Private room", "entire room": "Entire home/apt"}


def _stays(trip: Trip):
    """The first matching database row of every day's accommodation that has one."""
    for unit in trip.days:
        if trip.filled(unit["accommodation"]):
            rows = trip.places("accommodations", unit["accommodation"])
            if rows:
                yield rows[0]


def valid_room_rule(trip: Trip) -> Outcome:
    rule = trip.query.local_constraint.house_rule
    if rule is None:
        return None, "No house rule was asked for."
    banned = HOUSE_RULE_TEXT.get(rule)
    for row in _stays(trip):
        if banned is not None and banned in str(row.house_rules):
            return False, f"The house rule should be {rule}."
    return True, f"Every accommodation allows {rule}."


def valid_room_type(trip: Trip) -> Outcome:
    wanted = trip.query.local_constraint.room_type
    if wanted is None:
        return None, "No room type was asked for."
    for row in _stays(trip):
        if wanted == "not shared room":
            bad = row.room_type == "Shared room"
        else:
            bad = wanted in ROOM_TYPE_TEXT and row.room_type != ROOM_TYPE_TEXT[wanted]
        if bad:
            return False, f"The room type should be {wanted}."
    return True, f"Every accommodation is a {wanted}."


def valid_cuisine(trip: Trip) -> Outcome:
    wanted = trip.query.local_constraint.cuisine
    if not wanted:
        return None, "No cuisine was asked for."
    covered: set[str] = set()
    for unit in trip.days:
        for meal in MEALS:
            if not trip.filled(unit[meal]):
                continue
            if trip.memo.name_city(unit[meal])[1] == trip.query.org:
                if trip.mode.cuisine_skips_day:
                    break  # Q9: upstream's `continue` leaves the day's meal loop
                continue
            rows = trip.places("restaurants", unit[meal])
            if rows:
                covered.update(c for c in wanted if c in rows[0].cuisines)
    for cuisine in wanted:
        if cuisine not in covered:
            return False, f"The cuisine {cuisine} is not satisfied."
    return True, f"Every cuisine of {wanted} is served."


def valid_transportation(trip: Trip) -> Outcome:
    rule = trip.query.local_constraint.transportation
    if rule is None:
        return None, "No transportation rule was asked for."
    for unit in trip.days:
        value = unit["transportation"]
        if not trip.filled(value):
            continue
        text = value if trip.mode.case_sensitive_transport else value.lower()
        flight, drive = ("Flight", "Self-driving") if trip.mode.case_sensitive_transport else ("flight", "self-driving")
        if (rule == "no flight" and flight in text) or (rule == "no self-driving" and drive in text):
            return False, f"The transportation should not be {rule}."
    return True, f"The plan respects {rule}."


@dataclass(frozen=True)
class Check:
    """A named check: ``key`` is the upstream result key, ``label`` the paper's name."""

    key: str
    label: str
    category: str  # "commonsense" | "hard"
    run: Callable[[Trip], Outcome]


COMMONSENSE = (
    Check("is_valid_information_in_current_city", "Within Current City", "commonsense",
          is_valid_information_in_current_city),
    Check("is_valid_information_in_sandbox", "Within Sandbox", "commonsense", is_valid_information_in_sandbox),
    Check("is_reasonable_visiting_city", "Reasonable City Route", "commonsense", is_reasonable_visiting_city),
    Check("is_valid_restaurants", "Diverse Restaurants", "commonsense", is_valid_restaurants),
    Check("is_valid_transportation", "Non-conf. Transportation", "commonsense", is_valid_transportation),
    Check("is_valid_attractions", "Diverse Attractions", "commonsense", is_valid_attractions),
    Check("is_valid_accommodation", "Minimum Nights Stay", "commonsense", is_valid_accommodation),
    Check("is_not_absent", "Complete Information", "commonsense", is_not_absent),
)
HARD = (
    Check("valid_cost", "Budget", "hard", valid_cost),
    Check("valid_room_rule", "Room Rule", "hard", valid_room_rule),
    Check("valid_cuisine", "Cuisine", "hard", valid_cuisine),
    Check("valid_room_type", "Room Type", "hard", valid_room_type),
    Check("valid_transportation", "Transportation", "hard", valid_transportation),
)
# Hard checks run only when these commonsense checks pass (upstream eval.py).
HARD_GATE = ("is_not_absent", "is_valid_information_in_sandbox")
