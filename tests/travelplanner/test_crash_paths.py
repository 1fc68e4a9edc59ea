"""Inputs that crash the upstream evaluator (notes §7) get failing verdicts with a reason, never an exception."""

import pytest
from planshape.validators.travelplanner.checks.verdicts import check_plan

from .helpers import ROCKFORD, rockford

CRASHES = {
    "from without to": rockford(edits={(1, "current_city"): "from Rockford"}),
    "unparseable flight": rockford(edits={(0, "current_city"): "Rockford",
                                          (0, "transportation"): "Flight Number: F3573659"}),
    "flight number casing": rockford(edits={(0, "transportation"): "flight number F3573659, from St. Petersburg "
                                                                   "to Rockford"}),
    "current_city None": rockford(edits={(0, "current_city"): None}),
    "breakfast is a number": rockford(edits={(1, "breakfast"): 12}),
    "day is a string": ["day one", "day two", "day three"],
}


STRICT_READS = {"flight number casing"}  # an honest plan in another spelling: strict reads it (Q22), and passes it


@pytest.mark.parametrize("name", sorted(CRASHES))
@pytest.mark.parametrize("mode", ["official", "strict"])
def test_crash_inputs_fail_with_reason(database, name, mode):
    result = check_plan(CRASHES[name], ROCKFORD, database, mode)
    if mode == "strict" and name in STRICT_READS:
        assert result.final_pass, result.to_dict()
        return
    assert result.delivered
    assert not result.final_pass
    failed = [v for v in result.commonsense.values() if v.status.value == "fail"]
    assert failed and all(v.reason for v in failed)
    if mode == "official":  # upstream aborts the run: no verdict of that plan may pass
        assert len(failed) == 8 and result.hard is None
        assert "unevaluable plan" in result.note


def test_missing_day_key_is_a_crash(database):
    plan = rockford()
    del plan[0]["transportation"]
    result = check_plan(plan, ROCKFORD, database, "official")
    assert "KeyError" in result.note


@pytest.mark.parametrize("plan", [None, [], "", 0, {}])
def test_falsy_plan_is_not_delivered(database, plan):
    result = check_plan(plan, ROCKFORD, database, "official")
    assert not result.delivered and result.commonsense == {} and result.hard is None


@pytest.mark.parametrize("plan", [{"days": 1}, 42, "a plan", 3.5, True])
def test_non_list_plan_fails_every_check(database, plan):
    result = check_plan(plan, ROCKFORD, database, "strict")
    assert result.delivered and all(v.status.value == "fail" for v in result.commonsense.values())
