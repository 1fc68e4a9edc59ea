"""Property tests: no plan value makes a check raise; strict is never more lenient than official except
through a listed quirk."""

import dataclasses
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from planshape.validators.travelplanner.checks.modes import QUIRKS, STRICT
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.plan.formats import gate

from .helpers import ROCKFORD, ROCKFORD_PLAN, rockford

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=15), inner, max_size=4),
    max_leaves=20,
)
DAY_KEYS = ["days", "current_city", "transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(plan=json_values)
def test_any_value_as_plan_never_raises(database, plan):
    for mode in ("official", "strict"):
        result = check_plan(plan, ROCKFORD, database, mode)
        assert all(v.reason for v in result.commonsense.values())
    gate(plan)
    gate(json.dumps(plan))


@SETTINGS
@given(day=st.integers(0, 2), key=st.sampled_from(DAY_KEYS), value=json_values)
def test_any_value_in_a_field_never_raises(database, day, key, value):
    plan = rockford(edits={(day, key): value})
    for mode in ("official", "strict"):
        check_plan(plan, ROCKFORD, database, mode)


def _pool(database):
    """Plausible and adversarial field values a policy might write."""
    chicago = [r.name for r in database.in_city("restaurants", "Chicago")[:3]]
    rockford_names = [r.name for r in database.in_city("restaurants", "Rockford")[:6]]
    values = ["-", "", "Free time", "Drive from Rockford to St. Petersburg", "Rockford (Illinois)", "Rockford",
              "from St. Petersburg to Rockford", "from Rockford to Chicago", "Chicago",
              "self-driving, from Rockford to St. Petersburg, duration: 1 hours, distance: 2,000 km, cost: 100",
              "Taxi, from Rockford to St. Petersburg", "Flight Number: F3573120, from Rockford to St. Petersburg"]
    values += [f"{n}, Chicago" for n in chicago] + [f"{n}, Rockford" for n in rockford_names]
    values += [f"{n[:4]}, Rockford" for n in rockford_names] + [f"{n},  Rockford" for n in rockford_names]
    values += [f"{n}, Rockford;" for n in rockford_names] + [f"{n}, Rockford;{n}, Rockford;" for n in rockford_names]
    return values


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_strict_only_passes_official_failures_through_a_quirk(database, data):
    pool = _pool(database)
    edits = data.draw(st.dictionaries(
        st.tuples(st.integers(0, 2), st.sampled_from(DAY_KEYS[1:])), st.sampled_from(pool), min_size=1, max_size=3))
    plan = rockford(edits=edits)
    official = check_plan(plan, ROCKFORD, database, "official")
    strict = check_plan(plan, ROCKFORD, database, "strict")
    if strict.final_pass and not official.final_pass:
        explained = [q for q in QUIRKS
                     if not check_plan(plan, ROCKFORD, database, dataclasses.replace(STRICT, **{q: True})).final_pass]
        assert explained, f"strict passes a plan official fails, and no quirk explains it: {edits}"


def test_gold_plan_is_untouched_by_helpers():
    assert rockford() == ROCKFORD_PLAN and rockford() is not ROCKFORD_PLAN
