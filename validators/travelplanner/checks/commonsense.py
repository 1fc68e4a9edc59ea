"""The 8 commonsense TravelPlanner checks (notes §4), in ``official`` or ``strict`` mode.

Each check takes a ``Trip`` and returns ``(True | False | None, reason)``. The logic follows the upstream
evaluator step by step, so that an input upstream cannot evaluate raises here at the same point;
``evaluate.check_plan`` turns that into a failing verdict.
"""

from __future__ import annotations

from typing import Any

from ..reading import DRIVE, FLIGHT, TAXI, collapse
from ..store.sandbox import ground_cost
from ..text import NO_MORE_DAYS, flight_number, modes_named
from .categories import CONVENTION, FALSEHOOD, IMPOSSIBLE, UNMET, UNREADABLE, because
from .place_claims import place_failure
from .place_form import city_form_failure
from .stated_values import stated_value_failure, transport_failure
from .trip import DAY_KEYS, MEALS, NEW, Outcome, Seen, Trip, day_leg, filled
from .trip_timeline import timeline_failure
from .whereabouts import day_trip_reach


def is_reasonable_visiting_city(trip: Trip) -> Outcome:
    q, cities = trip.query, list[str]()
    for i, unit in enumerate(trip.days):
        text = unit["current_city"]
        ended = cities[-1] if cities else None
        if "from" in text:
            first, second = trip.route(text)
            if i == 0 and first != q.org:
                return False, because(UNMET, f"The first day's city should be {q.org}.")
            cities += [first, second]
        else:
            first = trip.city(text)
            cities.append(first)
        if not trip.mode.teleport_between_days and ended is not None and first != ended:
            return False, because(IMPOSSIBLE, f"Day {i + 1} starts in {first}, but day {i} ended in {ended}: no "
                                              f"transport joins them (Q21).")
        if not trip.mode.several_places_per_field and (failure := _current_city_form(trip, text)):
            return False, because(UNREADABLE, f"The current city of day {i + 1} {failure} (Q17).")
    if not trip.mode.route_may_skip_origin and cities and cities[0] != q.org:
        return False, because(UNMET, f"The first day's city should be {q.org}: the trip must leave from and return "
                                     f"to it.")
    if cities[0] != cities[-1]:
        return False, because(UNMET, "The trip should be a closed circle.")
    if not valid_city_sequence(cities):
        return False, because(UNMET, "The city sequence is invalid.")
    for idx, city in enumerate(cities):
        if city not in trip.store.city_state:
            return False, because(FALSEHOOD, f"{city} is not a valid city.")
        inner = idx not in (0, len(cities) - 1)
        if inner and q.days > 3 and trip.store.city_state[city] != q.dest:
            return False, because(UNMET, f"{city} is not in {q.dest}.")
        if inner and q.days <= 3 and not trip.mode.any_city_on_3_days and city != q.dest:
            return False, because(UNMET, f"{city} is not the destination {q.dest}.")
    return True, "The route is a closed circle through valid cities."


def _current_city_form(trip: Trip, text: str) -> str | None:
    """Strict Q17: ``from A to B`` with nothing around it, or one city; each city bare or ``City(State)``."""
    if "from" not in text:
        failure = city_form_failure(trip, text)
        return f"names more than one city: {failure}" if failure else None
    origin, destination = trip.from_to(text)
    written = text if trip.mode.exact_spelling else collapse(text)  # Q22: spacing is no second city
    if origin is None or destination is None or f"from {origin} to {destination}" != written and (
            trip.mode.exact_spelling or f"from {collapse(origin)} to {collapse(destination)}" != written):
        return f"says more than 'from A to B': {text!r}"
    failure = city_form_failure(trip, origin) or city_form_failure(trip, destination)
    return f"names more than two cities: {failure}" if failure else None


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
    seen = Seen(trip.normalised)
    for i, unit in enumerate(trip.days):
        for meal in MEALS:
            if meal in unit and trip.filled(unit[meal]):
                value = unit[meal]
                first = seen.add(trip.same(value), value, trip.row("restaurants", value, unit))
                if first is not NEW:
                    named = meal == "lunch" or not trip.mode.same_place_by_text  # upstream names it at lunch only
                    what = f"{meal} {value}" if named else meal
                    return False, because(UNMET, _repeated(trip, f"The restaurant in day {i + 1} {what} is repeated.",
                                                           value, first))
    return True, "No restaurant is repeated."


def is_valid_attractions(trip: Trip) -> Outcome:
    seen = Seen(trip.normalised)
    for i, unit in enumerate(trip.days):
        if "attraction" in unit and trip.filled(unit["attraction"]):
            for item in trip.items(unit["attraction"]):
                first = seen.add(trip.same(item), item, trip.row("attractions", item, unit))
                if first is not NEW:
                    return False, because(UNMET, _repeated(trip, f"The attraction '{item}' in day {i + 1} is repeated.",
                                                           item, first))
    return True, "No attraction is repeated."


def is_valid_accommodation(trip: Trip) -> Outcome:
    stays: list[Any] = []
    for unit in trip.days:
        if "accommodation" not in unit:
            return False, because(UNMET, "No Accommodation Info.")
        stays.append(unit["accommodation"])
    if trip.mode.same_place_by_text:
        runs = consecutive_runs(stays)
    else:  # Q11: consecutive nights at one listing are one stay, however its name is written
        runs = consecutive_runs(stays, [(trip.row("accommodations", v, u) or v) if not trip.absent(v) else v
                                        for v, u in zip(stays, trip.days, strict=True)])
    units = {id(v): u for v, u in zip(stays, trip.days, strict=True)}
    for value, nights in runs:
        if trip.absent(value):
            continue
        rows = trip.places("accommodations", value, units.get(id(value)))
        applies = len(rows) == 1 if trip.mode.substring_match else len(rows) >= 1
        if applies and nights < rows[0].minimum_nights:
            return False, because(FALSEHOOD, f"The accommodation {value} do not obey the minumum nights rule.")
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


def is_valid_transportation(trip: Trip) -> Outcome:
    first = trip.days[0]["transportation"]
    if not trip.filled(first):
        return False, because(UNMET, "The transportation in day 1 should not be empty.")
    kinds = [_kind(trip, first)]
    for i, unit in enumerate(trip.days):
        if "transportation" in unit and trip.filled(unit["transportation"]):
            value = unit["transportation"]
            if not trip.mode.mixed_transport_words and len(named := _modes(trip, value)) > 1:
                return False, because(UNMET, f"The transportation in day {i + 1} names more than one mode "
                                             f"({', '.join(named)}).")
            kinds.append(_kind(trip, value))
    if ("Self-driving" in kinds and "Flight" in kinds) or ("Taxi" in kinds and "Self-driving" in kinds):
        return False, because(UNMET, "The transportation is conflicting.")
    return True, "The transportation modes do not conflict."


KIND = {FLIGHT: "Flight", DRIVE: "Self-driving", TAXI: "Taxi"}


def _kind(trip: Trip, value: Any) -> str | None:
    """The transport's mode as upstream names it: by its words (Taxi, then Self-driving, then Flight), or in
    strict (Q22) by what the reader reads (``Self-drive`` is self-driving)."""
    if trip.mode.exact_spelling:
        return trip.memo.transport_kind(value)
    read = trip.transport(value)
    return trip.memo.transport_kind(value) if read is None or read.mode is None else KIND[read.mode]


def _modes(trip: Trip, value: str) -> list[str] | tuple[str, ...]:
    """The modes a transport names (Q14): by its words, or in strict (Q22) as read, other modes included."""
    read = None if trip.mode.exact_spelling else trip.transport(value)
    if read is None:
        return trip.memo.parse(modes_named, value)
    return (*read.modes, *read.other_modes)


def _in_cities(trip: Trip, value: Any, cities: Any, unit: Any = None) -> bool:
    """Whether a plan item is in one of the day's cities: a city's name appears in its text (Q12), or its own
    city is one of them. With Q1 open a stay day's "cities" are the characters of one name, as upstream's.
    Read tolerantly (Q22), an item whose city is unknown (no city written, none of the day's has it) is left to
    Within Sandbox, which names it."""
    if isinstance(cities, str) and isinstance(value, str):
        return not set(cities).isdisjoint(value)  # per character (Q1), in linear time
    if trip.mode.city_by_substring or isinstance(cities, str):
        return any(city in value for city in cities)
    city = trip.item_city(value, unit)
    return city in cities or (city == "" and not trip.mode.exact_spelling)


def _not_in_city(trip: Trip, message: str, value: Any, cities: Any, unit: Any = None) -> str:
    if trip.mode.city_by_substring or isinstance(cities, str):
        return message
    return f"{message[:-1]}: {value!r} is in {trip.item_city(value, unit)!r}, not in {' or '.join(cities)}."


def _transport_in_city(trip: Trip, i: int, text: str, value: Any, cities: Any) -> str | None:
    """Upstream: every city of the day appears in the transport text. Strict (Q12) also wants the
    transport's own leg, when it names one, to be the day's leg: the leg checked and charged is the leg
    travelled. Read tolerantly (Q22), a transport that names no city takes the day's leg: only the legs it
    names are compared."""
    message = f"The transportation in day {i + 1} is invalid city choice."
    if not trip.mode.exact_spelling and not trip.mode.city_by_substring and isinstance(cities, list):
        return _read_leg_in_city(trip, i, text, value, cities, message)
    if isinstance(cities, str) and isinstance(value, str):
        if not set(cities) <= set(value):  # per character (Q1), in linear time
            return because(FALSEHOOD, message)
    elif any(city not in value for city in cities):
        return because(FALSEHOOD, message)
    if trip.mode.city_by_substring or isinstance(cities, str):
        return None
    origin, destination = trip.from_to(value)
    if origin is None or destination is None:
        return None  # the leg is read from current_city
    leg, day = (trip.city(origin), trip.city(destination)), (cities[0], cities[-1])
    if leg == day:
        return None
    plan = f"goes from {day[0]} to {day[1]}" if "from" in text else f"stays in {day[0]}"
    return because(FALSEHOOD, f"{message[:-1]}: it goes from {leg[0]} to {leg[1]}, but the day {plan}.")


def _read_leg_in_city(trip: Trip, i: int, text: str, value: Any, cities: list[str], message: str) -> str | None:
    """Q12 on the tolerant reading: each leg the transport names is the day's (what it leaves out is the day's)."""
    read = trip.transport(value)
    if read is None:
        return None  # Within Sandbox names what cannot be read
    day = (cities[0], cities[-1])
    plan = f"goes from {day[0]} to {day[1]}" if "from" in text else f"stays in {day[0]}"
    for origin, destination in read.legs:
        leg = (day[0] if origin is None else trip.city(origin), trip.city(destination))
        if leg != day:
            return because(FALSEHOOD, f"{message[:-1]}: it goes from {leg[0]} to {leg[1]}, but the day {plan}.")
    return None


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
            if meal in unit and trip.filled(unit[meal]) and not _in_cities(trip, unit[meal], cities, unit):
                return False, because(IMPOSSIBLE, _not_in_city(trip, f"The {meal} in day {i + 1} is invalid city "
                                                                     f"choice.", unit[meal], cities, unit))
        if "attraction" in unit and trip.filled(unit["attraction"]):
            away: str | None = None  # the city of the day's day trip (Q20: one city a day)
            for item in trip.items(unit["attraction"]):
                if _in_cities(trip, item, cities, unit):
                    continue
                if not _day_trip(trip, text, item, unit):
                    far = _beyond_reach(trip, text, item, unit)
                    return False, because(CONVENTION if far else IMPOSSIBLE, _not_in_city(
                        trip, f"The attraction in day {i + 1} is invalid city choice{far}.", item, cities, unit))
                if not trip.mode.day_trip_any_distance:
                    there = trip.item_city(item, unit)
                    if away is not None and there != away:
                        return False, because(CONVENTION, f"The attraction in day {i + 1} is invalid city choice "
                                                          f"(Q20: a day trip goes to one city, but day {i + 1} visits "
                                                          f"{away} and {there}).")
                    away = there
        if "accommodation" in unit and trip.filled(unit["accommodation"]):
            stay = unit["accommodation"]
            last = [cities[-1]] if isinstance(cities, list) else cities[-1]  # upstream: the last character (Q1)
            if not _in_cities(trip, stay, last, unit):
                return False, because(IMPOSSIBLE, _not_in_city(trip, f"The accommodation in day {i + 1} is invalid "
                                                                     f"city choice.", stay, last, unit))
    if not trip.mode.two_places_at_once and (failure := timeline_failure(trip)):
        return False, because(failure.category, f"No schedule fits {failure}.")
    return True, "Every item is in the day's city."


def _beyond_reach(trip: Trip, current_city: str, item: str, unit: Any = None) -> str:
    """Q20's part of the reason: a same-state day trip that is too far."""
    if trip.mode.day_trip_any_distance or trip.mode.stay_day_chars or "from" in current_city:
        return ""
    here, there = trip.city(current_city), trip.item_city(item, unit)
    if trip.store.city_state.get(here) is None or trip.store.city_state.get(there) != trip.store.city_state.get(here):
        return ""
    reach = day_trip_reach(trip, here, there)
    far = "no drivable road" if reach is None else f"{reach:g} km by road"
    return f" (Q20: a day trip from {here} reaches {trip.mode.conventions.day_trip_km:g} km; {there} is {far})"


def _day_trip(trip: Trip, current_city: str, item: str, unit: Any = None) -> bool:
    """Strict mode lets a stay day visit attractions in another city within reach (a day trip).

    The official checker accepts any city on stay days (Q1); strict requires the current city for meals
    and accommodation, but a train gold plan (Seattle -> Texas, 7 days) visits San Angelo attractions
    while staying in San Antonio, so day trips stay allowed: to a city of the same state, within
    ``DAY_TRIP_KM`` by road (Q20; any distance with Q20 open).
    """
    if trip.mode.stay_day_chars or "from" in current_city:
        return False
    here, there = trip.city(current_city), trip.item_city(item, unit)
    states = trip.store.city_state
    if states.get(here) is None or states.get(there) != states.get(here):
        return False
    if trip.mode.day_trip_any_distance:
        return True
    reach = day_trip_reach(trip, here, there)  # Q20: also within reach by road (labels join far cities)
    return reach is not None and reach <= trip.mode.conventions.day_trip_km


def is_valid_information_in_sandbox(trip: Trip) -> Outcome:
    for i, unit in enumerate(trip.days):
        value = unit["transportation"]
        if trip.filled(value):
            failure = _transport_in_sandbox(trip, i, unit, value)
            if failure:
                return False, failure
        for meal in MEALS:
            if meal in unit and trip.filled(unit[meal]):
                if not trip.places("restaurants", unit[meal], unit):
                    return False, because(FALSEHOOD, f"The {meal} in day {i + 1} is invalid in the sandbox.")
                if failure := place_failure(trip, "restaurants", unit[meal], unit):
                    return False, because(failure.category, f"The {meal} in day {i + 1} {failure}.")
        if "attraction" in unit and trip.filled(unit["attraction"]):
            for item in trip.items(unit["attraction"]):
                if not trip.places("attractions", item, unit):
                    return False, because(FALSEHOOD, f"The attraction {item} in day {i + 1} is invalid in the sandbox.")
                if failure := place_failure(trip, "attractions", item, unit):
                    return False, because(failure.category, f"The attraction in day {i + 1} {failure}.")
        if "accommodation" in unit and trip.filled(unit["accommodation"]):
            if not trip.places("accommodations", unit["accommodation"], unit):
                return False, because(FALSEHOOD, f"The accommodation in day {i + 1} is invalid in the sandbox.")
            if failure := place_failure(trip, "accommodations", unit["accommodation"], unit):
                return False, because(failure.category, f"The accommodation in day {i + 1} {failure}.")
    return True, "Every item exists in the sandbox."


def _transport_in_sandbox(trip: Trip, i: int, unit: dict, value: str) -> str | None:
    if not trip.mode.exact_spelling:
        return transport_failure(trip, i, unit, value)  # Q22: read tolerantly, every stated value checked
    failure = _transport_row(trip, i, unit, value)
    if failure is None and not trip.mode.unchecked_stated_values and trip.memo.parse(modes_named, value):
        return stated_value_failure(trip, i, value)  # text naming no mode is Q5's
    return failure


def _transport_row(trip: Trip, i: int, unit: dict, value: str) -> str | None:
    origin, destination = day_leg(trip, unit, value)
    low = value.lower()
    if not trip.mode.mixed_transport_words and len(named := trip.memo.parse(modes_named, value)) > 1:
        return because(UNMET, f"The transportation in day {i + 1} names more than one mode ({', '.join(named)}).")
    if "flight number" in low:
        if origin is None or destination is None:
            raise ValueError(f"The transportation {value} in day {i + 1} can not be parsed.")
        number, leg = flight_number(value), (trip.city(origin), trip.city(destination))
        if trip.store.flight_on_route(number, *leg, trip.flight_date(i)) is None:
            return because(FALSEHOOD, f"The flight number in day {i + 1} is invalid in the sandbox.")
        return None
    if "self-driving" in low or "taxi" in low:
        if origin is None or destination is None:
            origin = destination = "-"
        mode = "self-driving" if "self-driving" in low else "taxi"
        if ground_cost(trip.store, trip.city(origin), trip.city(destination), mode) is None:
            return because(FALSEHOOD, f"The {mode} in day {i + 1} is invalid in the sandbox.")
        return None
    if not trip.mode.unchecked_transport:
        return because(UNMET, f"The transportation in day {i + 1} is not a flight, self-driving or taxi.")
    return None


READ_KEYS = frozenset(("days", "day", "current_city", *DAY_KEYS))


def is_not_absent(trip: Trip) -> Outcome:
    q = trip.query
    present = sum(1 for unit in trip.days if unit != {} and unit["current_city"] != NO_MORE_DAYS)
    if present != q.days:
        return False, because(UNMET, "Invalid Days")
    if not trip.mode.unread_plan_parts and (failure := _unread_parts(trip)):
        return False, because(UNMET, f"Invalid Days: {failure} (Q18).")
    if not _visiting_city_number(trip):
        return False, because(UNMET, "Invalid City Number")
    total = 0
    for i, unit in enumerate(trip.days):
        for key in DAY_KEYS:
            if key not in unit:
                return False, because(UNMET, f"No {key.capitalize()} Info.")
        text = unit["current_city"]
        if ("from " in text or "to " in text) and trip.absent(unit["transportation"]):
            return False, because(UNMET, f"No transportation in day {i + 1} is not allowed.")
        if ("from " not in text and " to " not in text) and _no_attraction(trip, unit["attraction"]):
            return False, because(UNMET, f"No attaction in day {i + 1} is not allowed.")
        if i != q.days - 1 and trip.absent(unit["accommodation"]):
            return False, because(UNMET, f"No accommodation in day {i + 1} is not allowed.")
        if "from " not in text and (trip.absent(unit["breakfast"]) or trip.absent(unit["lunch"])
                                    or trip.absent(unit["dinner"])):
            return False, because(UNMET, f"No meal in day {i + 1} is not allowed.")
        total += sum(1 for key in unit if filled(unit[key]))
    if total * 1.0 / (6 * q.days) < 0.5:
        return False, because(UNMET, "The absent information is more than 50%.")
    return True, "Every required field is filled."


def _unread_parts(trip: Trip) -> str | None:
    """Strict Q18: a day's number (``days`` or ``day``) is its position, a day holds only the fields the
    checks read, and the days after the query's last one plan nothing (padding with ``{}``, null, or days
    whose fields are all empty is tolerated)."""
    for i, unit in enumerate(trip.days):
        if not isinstance(unit, dict):
            continue
        number = unit.get("days", unit.get("day"))
        if number is not None and (isinstance(number, bool) or not isinstance(number, (int, float))
                                   or number != i + 1):
            return f"day {i + 1} is numbered {number!r}"
        if unit.keys() <= READ_KEYS:
            continue
        unknown = [key for key in unit if key not in READ_KEYS]
        if unknown:
            return f"day {i + 1} holds fields no check reads: {', '.join(map(repr, unknown[:3]))}"
    for k, unit in enumerate(trip.extra, start=len(trip.days) + 1):
        if unit is None or unit == {}:
            continue
        if not isinstance(unit, dict):
            return f"day {k}, after the {trip.query.days}-day trip, is a {type(unit).__name__}"
        planned = [key for key, value in unit.items()
                   if key not in ("days", "day") and not trip.absent(value) and value != NO_MORE_DAYS]
        if planned:
            return f"day {k}, after the {trip.query.days}-day trip, plans {', '.join(map(str, planned))}"
    return None


def _no_attraction(trip: Trip, value: Any) -> bool:
    """Strict (Q15) also wants one attraction named: ``";"`` or ``" ; "`` names none."""
    if trip.absent(value):
        return True
    return not trip.mode.blank_fields_count and isinstance(value, str) and not trip.items(value)


def _visiting_city_number(trip: Trip) -> bool:
    q, cities = trip.query, set[str]()
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
