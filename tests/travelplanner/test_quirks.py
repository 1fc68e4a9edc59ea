"""One test per quirk of notes §8: ``official`` reproduces upstream, ``strict`` closes it.

Every flag of ``modes.Mode`` must appear here (checked by ``test_every_quirk_is_tested``).
"""

import copy
import dataclasses
import inspect
import sys

from planshape.validators.travelplanner.checks.modes import QUIRKS, STRICT
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.query import Query

from .helpers import ROCKFORD, ROCKFORD_PLAN, rockford, verdicts

SAMPLE_Q = Query(org="Harborview", dest="Lindenfield", days=3, visiting_city_number=1,
                 date=["2022-03-10", "2022-03-11", "2022-03-12"], people_number=1, budget=1200, level="easy")
SAMPLE_PLAN = [
    {"days": 1, "current_city": "from Harborview to Lindenfield",
     "transportation": "Flight Number: F9000101, from Harborview to Lindenfield, Departure Time: 08:15, "
                       "Arrival Time: 10:05",
     "breakfast": "-", "attraction": "-", "lunch": "Linden Tandoor, Lindenfield",
     "dinner": "Mama Rosa Trattoria, Lindenfield", "accommodation": "Linden Garden Suite, Lindenfield"},
    {"days": 2, "current_city": "Lindenfield", "transportation": "-", "breakfast": "The Copper Kettle, Lindenfield",
     "attraction": "Linden Botanical Garden, Lindenfield;Lindenfield Art Museum, Lindenfield;",
     "lunch": "Green Lantern Dumplings, Lindenfield", "dinner": "Riverside Smokehouse, Lindenfield",
     "accommodation": "Linden Garden Suite, Lindenfield"},
    {"days": 3, "current_city": "from Lindenfield to Harborview",
     "transportation": "Flight Number: F9000103, from Lindenfield to Harborview, Departure Time: 18:20, "
                       "Arrival Time: 20:10",
     "breakfast": "El Camino Cantina, Lindenfield", "attraction": "Old Mill Park, Lindenfield;",
     "lunch": "-", "dinner": "-", "accommodation": "-"},
]


def both(plan, query, store):
    return verdicts(check_plan(plan, query, store, "official")), verdicts(check_plan(plan, query, store, "strict"))


def sample(edits=None):
    """The sample-world plan with ``{(day_index, key): value}`` edits."""
    edits = edits or {}
    plan = copy.deepcopy(SAMPLE_PLAN)
    for (day, key), value in edits.items():
        plan[day][key] = value
    return plan


def test_baselines_pass(database, sample_store):
    assert check_plan(rockford(), ROCKFORD, database, "strict").final_pass
    assert check_plan(sample(), SAMPLE_Q, sample_store, "strict").final_pass


def test_stay_day_chars(database):
    chicago = database.in_city("restaurants", "Chicago")[0].name
    plan = rockford(edits={(1, "breakfast"): f"{chicago}, Chicago"})
    official, strict = both(plan, ROCKFORD, database)
    assert official["is_valid_information_in_current_city"] == "pass"  # issue #50: per-character test
    assert strict["is_valid_information_in_current_city"] == "fail"


def test_drop_last_attraction(database):
    plan = rockford(edits={(1, "attraction"): "Free time"})
    official, strict = both(plan, ROCKFORD, database)
    assert all(v in ("pass", "n/a") for v in official.values())  # "Free time" is never looked at
    assert strict["is_valid_information_in_sandbox"] == "fail"


def test_substring_match(database):
    plan = rockford(edits={(1, "breakfast"): "Dial, Rockford"})  # a fragment of "Dial A Cake"
    official, strict = both(plan, ROCKFORD, database)
    assert official["is_valid_information_in_sandbox"] == "pass"
    assert strict["is_valid_information_in_sandbox"] == "fail"


def test_substring_match_min_nights_needs_one_row(sample_store):
    # "Lindenfield Week Stay" needs 5 nights; the fragment "Linden" matches several rows, so upstream
    # skips the minimum-nights rule; an exact name is checked in both modes.
    plan = sample({(0, "accommodation"): "Lindenfield Week Stay, Lindenfield",
                     (1, "accommodation"): "Lindenfield Week Stay, Lindenfield"})
    official, strict = both(plan, SAMPLE_Q, sample_store)
    assert official["is_valid_accommodation"] == strict["is_valid_accommodation"] == "fail"
    rows = sample_store.places("accommodations", "Lind", "Lindenfield")
    assert len(rows) > 1
    plan = sample({(0, "accommodation"): "Lind, Lindenfield", (1, "accommodation"): "Lind, Lindenfield"})
    official, _ = both(plan, SAMPLE_Q, sample_store)
    assert official["is_valid_accommodation"] == "pass"


def test_exact_repeats(database):
    plan = rockford(edits={(2, "lunch"): "Flying Mango,  Rockford"})  # two spaces: the same restaurant
    official, strict = both(plan, ROCKFORD, database)
    assert official["is_valid_restaurants"] == "pass"
    assert strict["is_valid_restaurants"] == "fail"
    # case, full-width letters and a zero-width space do not make a new restaurant either
    for variant in ("FLYING MANGO, Rockford", "Ｆlying Mango, Rockford", "Flying\u200b Mango, Rockford"):
        official, strict = both(rockford(edits={(2, "lunch"): variant}), ROCKFORD, database)
        assert official["is_valid_restaurants"] == "pass" and strict["is_valid_restaurants"] == "fail", variant


def test_unchecked_transport(database):
    for text in ("Bus from Rockford to St. Petersburg", "Duration: 18 hours, Cost: 95"):
        plan = rockford(edits={(2, "transportation"): text})
        official, strict = both(plan, ROCKFORD, database)
        assert official["is_valid_information_in_sandbox"] == "pass"
        assert official["valid_cost"] == "pass"  # and the leg costs nothing
        assert strict["is_valid_information_in_sandbox"] == "fail"
        assert verdicts(check_plan(plan, ROCKFORD, database, with_quirk("unchecked_transport")))[
            "is_valid_information_in_sandbox"] == "pass"


def test_case_sensitive_transport(sample_store):
    query = SAMPLE_Q.model_copy(update={"local_constraint": SAMPLE_Q.local_constraint.model_copy(
        update={"transportation": "no self-driving"})})
    plan = sample({
        (0, "transportation"): "self-driving, from Harborview to Lindenfield, duration: 9 hours 40 mins, "
                               "distance: 998 km, cost: 49",
        (2, "transportation"): "self-driving, from Lindenfield to Harborview, duration: 9 hours 35 mins, "
                               "distance: 996 km, cost: 49",
    })
    official, strict = both(plan, query, sample_store)
    assert official["valid_transportation"] == "pass"  # lowercase escapes "Self-driving"
    assert strict["valid_transportation"] == "fail"


def test_ignore_flight_date(sample_store):
    # F9000201 flies Harborview -> Lindenfield, but on 2022-03-20, not on the trip's first day
    plan = sample({(0, "transportation"): "Flight Number: F9000201, from Harborview to Lindenfield, "
                                           "Departure Time: 07:30, Arrival Time: 09:20"})
    official, strict = both(plan, SAMPLE_Q, sample_store)
    assert official["is_valid_information_in_sandbox"] == "pass"
    assert strict["is_valid_information_in_sandbox"] == "fail"


def test_any_city_on_3_days(database):
    query = ROCKFORD.model_copy(update={"dest": "Chicago"})
    official, strict = both(rockford(), query, database)
    assert official["is_reasonable_visiting_city"] == "pass"  # the visited city is never compared with dest
    assert strict["is_reasonable_visiting_city"] == "fail"


def test_cuisine_skips_day(sample_store):
    query = SAMPLE_Q.model_copy(update={"local_constraint": SAMPLE_Q.local_constraint.model_copy(
        update={"cuisine": ["Indian"]})})
    # an origin-city breakfast on day 1 hides day 1's Indian lunch (Linden Tandoor)
    plan = sample({(0, "breakfast"): "Pier 9 Noodles, Harborview"})
    official, strict = both(plan, query, sample_store)
    assert official["valid_cuisine"] == "fail"
    assert strict["valid_cuisine"] == "pass"
    assert verdicts(check_plan(sample(), query, sample_store, "official"))["valid_cuisine"] == "pass"


def test_unstripped_parenthesis(database):
    plan = rockford(edits={(1, "current_city"): "Rockford (Illinois)"})
    official, strict = both(plan, ROCKFORD, database)
    assert official["is_reasonable_visiting_city"] == "fail"  # "Rockford " is not a known city
    assert strict["is_reasonable_visiting_city"] == "pass"


def reasons(result) -> dict[str, str]:
    return {k: v.reason for k, v in (result.commonsense | (result.hard or {})).items()}


def with_quirk(*quirks: str):
    """Strict mode with quirks left open: shows which flags a strict verdict comes from."""
    return dataclasses.replace(STRICT, **dict.fromkeys(quirks, True))


def test_same_place_by_text(database):
    # The exploit: the cheapest restaurant of the city at every meal, the city written X, X(S1), ...
    cheapest = min(database.in_city("restaurants", "Rockford"), key=lambda r: r.average_cost).name
    meals = [(d, m) for d in range(3) for m in ("breakfast", "lunch", "dinner") if ROCKFORD_PLAN[d][m] != "-"]
    plan = rockford(edits={key: f"{cheapest}, Rockford(S{k})" if k else f"{cheapest}, Rockford"
                           for k, key in enumerate(meals)})
    official = check_plan(plan, ROCKFORD, database, "official")
    strict = check_plan(plan, ROCKFORD, database, "strict")
    assert official.final_pass  # upstream compares strings: full reward, and cheaper
    assert verdicts(check_plan(plan, ROCKFORD, database, with_quirk("same_place_by_text")))["is_valid_restaurants"] \
        == "pass"
    assert verdicts(strict)["is_valid_restaurants"] == "fail" and not strict.final_pass
    reason = reasons(strict)["is_valid_restaurants"]
    assert cheapest in reason and "same place" in reason

    # a space before the comma names the same row too; so does any "(...)" after an attraction's city
    plan = rockford(edits={(2, "lunch"): "Flying Mango , Rockford"})
    assert verdicts(check_plan(plan, ROCKFORD, database, "strict"))["is_valid_restaurants"] == "fail"
    plan = rockford(edits={(2, "attraction"): "Burpee Museum of Natural History, Rockford(Illinois);"})
    official, strict = both(plan, ROCKFORD, database)
    assert official["is_valid_attractions"] == "pass" and strict["is_valid_attractions"] == "fail"

    # and two nights at one listing are one stay, however the name is written (fair in both directions)
    plan = rockford(edits={(1, "accommodation"): "Pure luxury one bdrm + sofa bed on Central Park , Rockford"})
    official, strict = both(plan, ROCKFORD, database)
    assert official["is_valid_accommodation"] == "fail"  # two "stays" of one night; the listing needs 2
    assert strict["is_valid_accommodation"] == "pass"


def test_city_by_substring(database, train):
    query, gold = train[16]  # Sacramento -> Atlanta, 3 days
    assert query.dest == "Atlanta" and gold[1]["current_city"] == "Atlanta"
    plan = copy.deepcopy(gold)
    plan[1]["breakfast"] = "Atlanta Highway Seafood Market, Alamosa"  # a restaurant in Alamosa, Colorado
    official = check_plan(plan, query, database, "official")
    strict = check_plan(plan, query, database, "strict")
    assert verdicts(official)["is_valid_information_in_current_city"] == "pass"
    assert verdicts(check_plan(plan, query, database, with_quirk("city_by_substring")))[
        "is_valid_information_in_current_city"] == "pass"  # "Atlanta" appears in the name
    assert verdicts(strict)["is_valid_information_in_current_city"] == "fail"
    assert "Alamosa" in reasons(strict)["is_valid_information_in_current_city"]

    # the transport leg charged must be the leg travelled: a $143 taxi stands in for the flight
    plan = rockford(edits={(0, "transportation"): "Taxi, from Rockford to Chicago, St. Petersburg"})
    official = check_plan(plan, ROCKFORD, database, "official")
    strict = check_plan(plan, ROCKFORD, database, "strict")
    assert official.final_pass  # the trailing ", St. Petersburg" also makes the string unreadable (Q16)
    assert verdicts(check_plan(plan, ROCKFORD, database, with_quirk("city_by_substring", "unchecked_stated_values"))
                    ) == verdicts(official)
    assert verdicts(strict)["is_valid_information_in_current_city"] == "fail"
    assert "from Rockford to Chicago" in reasons(strict)["is_valid_information_in_current_city"]


def test_route_may_skip_origin(database):
    # Never leave: day 1 is written as a stay in Rockford, so the route [Rockford, Rockford, Rockford] is a
    # closed circle and the trip home is never paid for.
    used = str(ROCKFORD_PLAN)
    meals = [r.name for r in database.in_city("restaurants", "Rockford") if r.name not in used]
    sights = [r.name for r in database.in_city("attractions", "Rockford") if r.name not in used]
    plan = rockford()
    for day in (0, 2):
        plan[day].update(current_city="Rockford", breakfast=f"{meals[day * 3]}, Rockford",
                         lunch=f"{meals[day * 3 + 1]}, Rockford", dinner=f"{meals[day * 3 + 2]}, Rockford",
                         attraction=f"{sights[day]}, Rockford;")
    plan[2]["transportation"] = "-"
    official = check_plan(plan, ROCKFORD, database, "official")
    strict = check_plan(plan, ROCKFORD, database, "strict")
    assert official.final_pass
    assert verdicts(check_plan(plan, ROCKFORD, database, with_quirk("route_may_skip_origin")))[
        "is_reasonable_visiting_city"] == "pass"
    assert verdicts(strict)["is_reasonable_visiting_city"] == "fail"
    assert "St. Petersburg" in reasons(strict)["is_reasonable_visiting_city"]


def test_mixed_transport_words(database):
    # A flight that also says "self-driving" counts as self-driving in the conflict check, so a trip can
    # fly out and drive back.
    flight = ROCKFORD_PLAN[0]["transportation"] + ", Self-driving to the airport"
    drive = "Self-driving, from Rockford to St. Petersburg, duration: 18 hours, distance: 1,900 km, cost: 95"
    plan = rockford(edits={(0, "transportation"): flight, (2, "transportation"): drive})
    official, strict = both(plan, ROCKFORD, database)
    assert official["is_valid_transportation"] == "pass"
    result = check_plan(plan, ROCKFORD, database, "strict")
    assert strict["is_valid_transportation"] == "fail"
    assert "more than one mode" in reasons(result)["is_valid_transportation"]
    assert "more than one mode" in reasons(result)["is_valid_information_in_sandbox"]
    assert verdicts(check_plan(plan, ROCKFORD, database, with_quirk("mixed_transport_words")))[
        "is_valid_transportation"] == "pass"


def test_blank_fields_count(database):
    # null names no meal: upstream only counts "" and "-" as missing, so the meal is neither required nor paid
    plan = rockford(edits={(1, "breakfast"): None})
    assert check_plan(plan, ROCKFORD, database, "official").final_pass
    strict = check_plan(plan, ROCKFORD, database, "strict")
    assert verdicts(strict)["is_not_absent"] == "fail" and "No meal in day 2" in reasons(strict)["is_not_absent"]
    assert verdicts(check_plan(plan, ROCKFORD, database, with_quirk("blank_fields_count")))["is_not_absent"] == "pass"
    # " ; " names no attraction: with every segment checked (Q2 closed) it was an empty list that passed
    plan = rockford(edits={(1, "attraction"): " ; "})
    assert check_plan(plan, ROCKFORD, database, with_quirk("blank_fields_count")).final_pass
    strict = check_plan(plan, ROCKFORD, database, "strict")
    assert verdicts(strict)["is_not_absent"] == "fail" and "attaction in day 2" in reasons(strict)["is_not_absent"]


def test_repeated_lunch_reason_names_the_restaurant(database):
    """Upstream's message names the restaurant at lunch only; strict names it at every meal."""
    plan = rockford(edits={(2, "lunch"): "Flying Mango, Rockford"})
    official = check_plan(plan, ROCKFORD, database, "official")
    assert reasons(official)["is_valid_restaurants"] == \
        "The restaurant in day 3 lunch Flying Mango, Rockford is repeated."
    plan = rockford(edits={(2, "dinner"): "Flying Mango, Rockford"})
    assert reasons(check_plan(plan, ROCKFORD, database, "official"))["is_valid_restaurants"] == \
        "The restaurant in day 3 dinner is repeated."
    assert "Flying Mango" in reasons(check_plan(plan, ROCKFORD, database, "strict"))["is_valid_restaurants"]


def _closed_by(plan, query, database, quirk: str, check: str) -> str:
    """Assert that official passes ``plan``, strict fails ``check`` and reopening ``quirk`` alone passes it
    again; return strict's reason (which names the rule)."""
    official = check_plan(plan, query, database, "official")
    strict = check_plan(plan, query, database, "strict")
    assert official.final_pass, verdicts(official)
    assert verdicts(strict)[check] == "fail", verdicts(strict)
    assert check_plan(plan, query, database, with_quirk(quirk)).final_pass
    return reasons(strict)[check]


def test_unchecked_stated_values(database, train):
    # A flight that leaves at dawn and lands by breakfast, as stated; the row says 15:40 -> 17:04.
    plan = rockford(edits={(0, "transportation"): "Flight Number: F3573659, from St. Petersburg to Rockford, "
                                                    "Departure Time: 06:00, Arrival Time: 07:30"})
    reason = _closed_by(plan, ROCKFORD, database, "unchecked_stated_values", "is_valid_information_in_sandbox")
    assert "departure time 06:00" in reason and "15:40 (Q16)" in reason
    query, gold = train[1]  # Kansas City -> Pensacola by car: 14 hours 2 mins, 1,433 km
    for stated, named in (("duration: 2 hours 0 mins, distance: 1,433 km", "duration"),
                          ("duration: 14 hours 2 mins, distance: 143 km", "distance")):
        plan = copy.deepcopy(gold)
        plan[0]["transportation"] = f"Self-driving, from Kansas City to Pensacola, {stated}, cost: 71"
        assert named in _closed_by(plan, query, database, "unchecked_stated_values",
                                   "is_valid_information_in_sandbox")
    # A time in other digits is not the canonical string's time: a countable Q16 failure, never a crash
    # (a superscript digit passes str.isdigit, then int() raises).
    for time in ("15:4\u2070", "15:\u0664\u0660", "\u0661\u0665:40"):
        plan = rockford(edits={(0, "transportation"): ROCKFORD_PLAN[0]["transportation"].replace("15:40", time)})
        reason = reasons(check_plan(plan, ROCKFORD, database, "strict"))["is_valid_information_in_sandbox"]
        assert f"departure time {time}, but flight F3573659 has 15:40 (Q16)" in reason


def test_several_places_per_field(database):
    # "Nonexistent Bistro" is on a line of its own: upstream reads only the last line.
    plan = rockford(edits={(0, "dinner"): "Nonexistent Bistro\nCoco Bambu, Rockford"})
    reason = _closed_by(plan, ROCKFORD, database, "several_places_per_field", "is_valid_information_in_sandbox")
    assert "dinner in day 1 names more than one place" in reason
    plan = rockford(edits={(0, "current_city"): "from St. Petersburg to Rockford, then on to Paris"})
    assert "then on to Paris" in _closed_by(plan, ROCKFORD, database, "several_places_per_field",
                                            "is_reasonable_visiting_city")


def test_unread_plan_parts(database):
    plan = rockford() + rockford()  # the round trip, planned (and never paid for) a second time
    reason = _closed_by(plan, ROCKFORD, database, "unread_plan_parts", "is_not_absent")
    assert "day 4, after the 3-day trip, plans" in reason
    plan = rockford(edits={(1, "days"): 30})
    assert "day 2 is numbered 30" in _closed_by(plan, ROCKFORD, database, "unread_plan_parts", "is_not_absent")
    plan = rockford(edits={(1, "lunch2"): "Flying Mango, Rockford"})  # a second lunch nothing reads
    assert "'lunch2'" in _closed_by(plan, ROCKFORD, database, "unread_plan_parts", "is_not_absent")
    padded = rockford() + [{}, {}, {"days": 6, "current_city": "-", "transportation": "-", "breakfast": "-"}]
    assert check_plan(padded, ROCKFORD, database, "strict").final_pass  # empty padding is tolerated


def test_two_places_at_once(database, train):
    # Day 1's dinner moved to breakfast: in Rockford, though the flight from St. Petersburg lands at 17:04.
    plan = rockford(edits={(0, "breakfast"): ROCKFORD_PLAN[0]["dinner"], (0, "dinner"): "-"})
    reason = _closed_by(plan, ROCKFORD, database, "two_places_at_once", "is_valid_information_in_current_city")
    assert "the breakfast Coco Bambu, Rockford (06:00-12:00, 30 min) cannot fit" in reason
    assert "flight F3573659 from St. Petersburg to Rockford, which leaves at 15:40 and lands at 17:04" in reason
    query, gold = train[2]  # Las Vegas -> Stockton; home on day 3 by a flight leaving Stockton at 13:42
    plan = copy.deepcopy(gold)
    plan[2]["dinner"], plan[2]["lunch"] = plan[2]["lunch"], "-"  # lunch moved to after the flight has left
    reason = _closed_by(plan, query, database, "two_places_at_once", "is_valid_information_in_current_city")
    assert "No schedule fits day 3 (Q19): the dinner" in reason and "leaves Stockton at 13:42" in reason


def test_day_trip_any_distance(database, train):
    query, gold = train[41]  # Seattle -> Texas, 7 days; days 4-6 stay in San Antonio
    sight = database.in_city("attractions", "El Paso")[0].name  # 887 km from San Antonio by road
    plan = copy.deepcopy(gold)
    plan[3]["attraction"] = f"{sight}, El Paso;"
    reason = _closed_by(plan, query, database, "day_trip_any_distance", "is_valid_information_in_current_city")
    assert "(Q20: a day trip from San Antonio reaches 400 km; El Paso is 887 km by road)" in reason
    # Several day trips in one day, each within reach (231, 290 and 252 km, in three directions): about
    # 1,500 km of unpaid driving, and a bigger pool of attractions for Diverse Attractions.
    for day, cities in ((3, ("Corpus Christi", "Waco")), (5, ("Austin", "Corpus Christi", "Laredo"))):
        plan = copy.deepcopy(gold)
        plan[day]["attraction"] += "".join(f"{_new_sight(database, gold, c)}, {c};" for c in cities)
        reason = _closed_by(plan, query, database, "day_trip_any_distance", "is_valid_information_in_current_city")
        first = "San Angelo" if day == 3 else cities[0]
        assert f"(Q20: a day trip goes to one city, but day {day + 1} visits {first} and " in reason
    plan = copy.deepcopy(gold)  # one day-trip city (as the gold plan's days 4 and 5) stays allowed
    plan[5]["attraction"] += f"{_new_sight(database, gold, 'Austin')}, Austin;"
    assert check_plan(plan, query, database, "strict").final_pass


def _new_sight(database, plan, city: str) -> str:
    """An attraction of ``city`` that ``plan`` does not visit."""
    seen = {item.strip() for day in plan for item in str(day.get("attraction", "")).split(";")}
    return next(a.name for a in database.in_city("attractions", city) if f"{a.name}, {city}" not in seen)


def test_teleport_between_days(database, train):
    query, gold = train[5]  # Orlando -> Texas, 5 days: San Antonio, then a flight to Houston on day 3
    plan = copy.deepcopy(gold)
    plan[2]["current_city"], plan[2]["transportation"] = "Houston(Texas)", "-"  # Houston, with no flight
    plan[2]["breakfast"] = f"{database.in_city('restaurants', 'Houston')[0].name}, Houston(Texas)"
    reason = _closed_by(plan, query, database, "teleport_between_days", "is_reasonable_visiting_city")
    assert "Day 3 starts in Houston, but day 2 ended in San Antonio" in reason


def test_every_quirk_is_tested():
    names = {name for name, _ in inspect.getmembers(sys.modules[__name__], inspect.isfunction)}
    missing = [q for q in QUIRKS if f"test_{q}" not in names]
    assert not missing, f"quirks without a test: {missing}"


def test_two_places_at_once_across_midnight():
    """A flight that lands after midnight keeps the traveller on the plane into the next day (Q19)."""
    from planshape.validators.travelplanner import sample
    from planshape.validators.travelplanner.store.database import load_database
    from planshape.validators.travelplanner.store.sandbox import Flight, Sandbox

    world = load_database(sample.sample_database())
    red_eye = Flight("F9000199", 150, "23:30", "11:15", "11 hours 45 minutes", "2022-03-10", "Harborview",
                     "Lindenfield", 620.0)
    store = Sandbox(world.restaurants, world.attractions, world.accommodations, [*world.flight_rows, red_eye],
                    world.distances, dict(world.city_state))
    plan = copy.deepcopy(SAMPLE_PLAN)
    plan[0].update(transportation="Flight Number: F9000199, from Harborview to Lindenfield, Departure Time: 23:30, "
                                  "Arrival Time: 11:15", lunch="-", dinner="-")
    # Day 2's breakfast (until 10:30) is eaten while the flight of day 1 is still in the air.
    reason = _closed_by(plan, SAMPLE_Q, store, "two_places_at_once", "is_valid_information_in_current_city")
    assert reason == ("No schedule fits day 2 (Q19): the breakfast The Copper Kettle, Lindenfield (06:00-12:00, 30 "
                      "min) cannot fit: the day starts at 12:15, when day 1's flight F9000199 from Harborview to "
                      "Lindenfield lands at 11:15 (60 min to leave the airport). [convention]")
    plan[1]["breakfast"] = "-"  # no breakfast: lunch (from 11:00 to 16:30) after landing is possible
    plan[1]["lunch"], plan[1]["dinner"] = plan[1]["dinner"], plan[1]["lunch"]
    assert "is_valid_information_in_current_city" not in {
        k for k, v in check_plan(plan, SAMPLE_Q, store, "strict").commonsense.items() if v.status.value == "fail"}


def test_exact_spelling(database, train):
    """Q22: upstream reads plan text by exact spelling; strict reads what it states (``reading.py``).

    Honest variants of the first gold plan's flights and of a drive pass strict, and fail it when the exact
    spelling is held against them (Q22 reopened); a mode in another spelling cannot escape a rule: ``Self-drive``
    escapes official's "no self-driving" (and is charged nothing), not strict's."""
    flight = ROCKFORD_PLAN[0]["transportation"]
    labels_upper = flight.replace("Flight Number", "FLIGHT NUMBER").replace("Departure Time", "DEPARTURE TIME")
    for variant in (flight.replace("Flight Number", "Flight number"), flight + " ", labels_upper,
                    flight.replace(", ", " ").replace("Departure Time:", "departs"),
                    flight.replace("15:40", "15:40:00") + ", Cost: $474"):
        plan = rockford(edits={(0, "transportation"): variant})
        assert check_plan(plan, ROCKFORD, database, "strict").final_pass, variant
        assert not check_plan(plan, ROCKFORD, database, with_quirk("exact_spelling")).final_pass, variant
    query, gold = train[1]  # Kansas City -> Pensacola by car: 14 hours 2 mins, 1,433 km, charged 71
    drive = ("self-driving from Kansas City to Pensacola, Duration: 14 hrs 2 minutes, Distance: 1,433 kilometers, "
             "Cost: $71.")
    plan = copy.deepcopy(gold)
    plan[0]["transportation"] = drive
    assert check_plan(plan, query, database, "strict").final_pass
    assert not check_plan(plan, query, database, with_quirk("exact_spelling")).final_pass
    for day in plan[: query.days]:  # every leg, the drive home too
        day["transportation"] = day["transportation"].replace("self-driving", "Self-drive").replace(
            "Self-driving", "Self-drive")
    no_driving = query.model_copy(update={"local_constraint": query.local_constraint.model_copy(
        update={"transportation": "no self-driving"})})
    official, strict = both(plan, no_driving, database)
    assert official["valid_transportation"] == "pass" and strict["valid_transportation"] == "fail"
