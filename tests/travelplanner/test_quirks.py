"""One test per quirk of notes §8: ``official`` reproduces upstream, ``strict`` closes it.

Every flag of ``modes.Mode`` must appear here (checked by ``test_every_quirk_is_tested``).
"""

import copy
import inspect
import sys

from planshape.validators.travelplanner.evaluate import check_plan
from planshape.validators.travelplanner.modes import QUIRKS
from planshape.validators.travelplanner.query import Query

from .helpers import ROCKFORD, rockford, verdicts

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


def test_unchecked_transport(database):
    plan = rockford(edits={(2, "transportation"): "Drive from Rockford to St. Petersburg"})
    official, strict = both(plan, ROCKFORD, database)
    assert official["is_valid_information_in_sandbox"] == "pass"
    assert official["valid_cost"] == "pass"  # and the leg costs nothing
    assert strict["is_valid_information_in_sandbox"] == "fail"


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


def test_every_quirk_is_tested():
    names = {name for name, _ in inspect.getmembers(sys.modules[__name__], inspect.isfunction)}
    missing = [q for q in QUIRKS if f"test_{q}" not in names]
    assert not missing, f"quirks without a test: {missing}"
