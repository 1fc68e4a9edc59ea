"""The 8 commonsense and 5 hard TravelPlanner checks, in ``official`` or ``strict`` mode.

Each check takes a ``Trip`` and returns ``(True | False | None, reason)``; None means not applicable.
The logic follows the upstream evaluator (notes §4-§5) step by step, so that an input upstream cannot
evaluate raises here at the same point; ``evaluate.check_plan`` turns that into a failing verdict.
Mode flags (``modes.Mode``) switch each known quirk on (official) or off (strict).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .modes import Mode
from .query import Query
from .sandbox import SandboxStore, ground_cost, vehicles
from .text import NO_MORE_DAYS, attraction_items, before_parenthesis, extract_from_to, flight_number, transport_kind
from .text import name_city as parse_name_city

Outcome = tuple[bool | None, str]
MEALS = ("breakfast", "lunch", "dinner")
DAY_KEYS = ("transportation", "breakfast", "lunch", "dinner", "attraction", "accommodation")


@dataclass(frozen=True)
class Trip:
    """One plan under check: the first ``query.days`` day dicts, the query, the database and the mode."""

    query: Query
    days: list[Any]
    store: SandboxStore
    mode: Mode
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def city(self, text: Any) -> str:
        """A city name with its ``(State)`` removed; strict mode also strips spaces (Q10)."""
        city = before_parenthesis(text)
        return city if self.mode.unstripped_parenthesis else city.strip()

    def route(self, text: str) -> tuple[str, str]:
        """Both cities of a ``from A to B`` text; raises TypeError when there is none (upstream crash)."""
        origin, destination = extract_from_to(text)
        return self.city(origin), self.city(destination)

    def items(self, attraction: str) -> list[str]:
        return attraction_items(attraction, self.mode.drop_last_attraction)

    def places(self, table: str, text: str) -> list:
        """Database rows named by a ``Name, City`` plan item (memoised: checks look items up repeatedly)."""
        key = (table, text) if isinstance(text, str) and getattr(self.store, "memoise", True) else None
        if key in self._memo:
            return self._memo[key]
        name, city = parse_name_city(text)
        rows = self.store.places(table, name, city, exact=not self.mode.substring_match)
        if key is not None:
            self._memo[key] = rows
        return rows

    def flight_date(self, day: int) -> str | None:
        """The date a day's flight must fly on: None (any date) in official mode (Q7)."""
        if self.mode.ignore_flight_date or day >= len(self.query.date):
            return None
        return self.query.date[day]

    def same(self, text: str) -> str:
        """The key under which two plan items count as a repeat (Q4: raw string, or normalised)."""
        return text if self.mode.exact_repeats else " ".join(text.split()).casefold()


def filled(value: Any) -> bool:
    """Upstream's guard before reading a field: truthy and not ``-``."""
    return bool(value) and value != "-"


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


def is_valid_restaurants(trip: Trip) -> Outcome:
    seen: list[Any] = []
    for i, unit in enumerate(trip.days):
        for meal in MEALS:
            if meal in unit and filled(unit[meal]):
                key = trip.same(unit[meal])
                if key in seen:
                    return False, f"The restaurant in day {i + 1} {meal} is repeated."
                seen.append(key)
    return True, "No restaurant is repeated."


def is_valid_attractions(trip: Trip) -> Outcome:
    seen: list[str] = []
    for i, unit in enumerate(trip.days):
        if "attraction" in unit and filled(unit["attraction"]):
            for item in trip.items(unit["attraction"]):
                key = trip.same(item)
                if key in seen:
                    return False, f"The attraction '{item}' in day {i + 1} is repeated."
                seen.append(key)
    return True, "No attraction is repeated."


def is_valid_accommodation(trip: Trip) -> Outcome:
    stays: list[Any] = []
    for unit in trip.days:
        if "accommodation" not in unit:
            return False, "No Accommodation Info."
        stays.append(unit["accommodation"])
    for value, nights in consecutive_runs(stays):
        if value in ("-", ""):
            continue
        rows = trip.places("accommodations", value)
        applies = len(rows) == 1 if trip.mode.substring_match else len(rows) >= 1
        if applies and nights < rows[0].minimum_nights:
            return False, f"The accommodation {value} do not obey the minumum nights rule."
    return True, "Every stay meets its minimum nights."


def consecutive_runs(values: list[Any]) -> list[tuple[Any, int]]:
    runs: list[tuple[Any, int]] = []
    for value in values:
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1] + 1)
        else:
            runs.append((value, 1))
    return runs


def is_valid_transportation(trip: Trip) -> Outcome:
    first = trip.days[0]["transportation"]
    if not filled(first):
        return False, "The transportation in day 1 should not be empty."
    kinds = [transport_kind(first)]
    for unit in trip.days:
        if "transportation" in unit and filled(unit["transportation"]):
            kinds.append(transport_kind(unit["transportation"]))
    if ("Self-driving" in kinds and "Flight" in kinds) or ("Taxi" in kinds and "Self-driving" in kinds):
        return False, "The transportation is conflicting."
    return True, "The transportation modes do not conflict."


def is_valid_information_in_current_city(trip: Trip) -> Outcome:
    for i, unit in enumerate(trip.days):
        text = unit["current_city"]
        if "from" in text:
            cities: Any = list(trip.route(text))
        elif trip.mode.stay_day_chars:
            cities = before_parenthesis(text)  # a string: every test below runs per character (Q1)
        else:
            cities = [trip.city(text)]
        if "transportation" in unit and filled(unit["transportation"]):
            if any(city not in unit["transportation"] for city in cities):
                return False, f"The transportation in day {i + 1} is invalid city choice."
        for meal in MEALS:
            if meal in unit and filled(unit[meal]) and not any(city in unit[meal] for city in cities):
                return False, f"The {meal} in day {i + 1} is invalid city choice."
        if "attraction" in unit and filled(unit["attraction"]):
            for item in trip.items(unit["attraction"]):
                if not any(city in item for city in cities) and not _day_trip(trip, text, item):
                    return False, f"The attraction in day {i + 1} is invalid city choice."
        if "accommodation" in unit and filled(unit["accommodation"]):
            if cities[-1] not in unit["accommodation"]:
                return False, f"The accommodation in day {i + 1} is invalid city choice."
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
    return here is not None and states.get(parse_name_city(item)[1]) == here


def is_valid_information_in_sandbox(trip: Trip) -> Outcome:
    for i, unit in enumerate(trip.days):
        value = unit["transportation"]
        if filled(value):
            failure = _transport_in_sandbox(trip, i, unit, value)
            if failure:
                return False, failure
        for meal in MEALS:
            if meal in unit and filled(unit[meal]) and not trip.places("restaurants", unit[meal]):
                return False, f"The {meal} in day {i + 1} is invalid in the sandbox."
        if "attraction" in unit and filled(unit["attraction"]):
            for item in trip.items(unit["attraction"]):
                if not trip.places("attractions", item):
                    return False, f"The attraction {item} in day {i + 1} is invalid in the sandbox."
        if "accommodation" in unit and filled(unit["accommodation"]):
            if not trip.places("accommodations", unit["accommodation"]):
                return False, f"The accommodation in day {i + 1} is invalid in the sandbox."
    return True, "Every item exists in the sandbox."


def _leg(unit: dict, value: str) -> tuple[str | None, str | None]:
    """The leg's cities from the transport text, else from ``current_city`` (upstream's fallback)."""
    origin, destination = extract_from_to(value)
    if origin is None or destination is None:
        origin, destination = extract_from_to(unit["current_city"])
    return origin, destination


def _transport_in_sandbox(trip: Trip, i: int, unit: dict, value: str) -> str | None:
    origin, destination = _leg(unit, value)
    low = value.lower()
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
        if ("from " in text or "to " in text) and unit["transportation"] in ("", "-"):
            return False, f"No transportation in day {i + 1} is not allowed."
        if ("from " not in text and " to " not in text) and unit["attraction"] in ("", "-"):
            return False, f"No attaction in day {i + 1} is not allowed."
        if i != q.days - 1 and unit["accommodation"] in ("", "-"):
            return False, f"No accommodation in day {i + 1} is not allowed."
        if any(unit[meal] in ("", "-") for meal in MEALS) and "from " not in text:
            return False, f"No meal in day {i + 1} is not allowed."
        total += sum(1 for key in unit if filled(unit[key]))
    if total * 1.0 / (6 * q.days) < 0.5:
        return False, "The absent information is more than 50%."
    return True, "Every required field is filled."


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
        if filled(value):
            origin, destination = _leg(unit, value)
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
            if filled(unit[meal]):
                rows = trip.places("restaurants", unit[meal])
                if rows:
                    total += rows[0].average_cost * q.people_number
        if filled(unit["accommodation"]):
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
        if filled(unit["accommodation"]):
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
            if not filled(unit[meal]):
                continue
            if parse_name_city(unit[meal])[1] == trip.query.org:
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
        if not filled(value):
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
