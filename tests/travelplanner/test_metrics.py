"""Upstream metric formulas, worked by hand on a small set."""

import pytest
from planshape.validators.travelplanner.checks.verdicts import PlanResult, Status, Verdict
from planshape.validators.travelplanner.evaluation.metrics import CS_KEYS, HARD_KEYS, compute_metrics, hard_denominator
from planshape.validators.travelplanner.query import LocalConstraint, Query


def _q(**lc) -> Query:
    return Query(org="A", dest="B", days=3, visiting_city_number=1, budget=100, level="easy",
                 local_constraint=LocalConstraint(**lc))


def _result(cs_fail=(), hard=None) -> PlanResult:
    cs = {k: Verdict(Status.FAIL if k in cs_fail else Status.PASS, "") for k in CS_KEYS}
    return PlanResult("official", True, cs, hard)


def _hard(fail=(), na=()) -> dict:
    return {k: Verdict(Status.NA if k in na else Status.FAIL if k in fail else Status.PASS, "") for k in HARD_KEYS}


ALL_NA = ("valid_room_rule", "valid_cuisine", "valid_room_type", "valid_transportation")


def test_worked_example():
    queries = [_q(), _q(cuisine=["Indian"]), _q(), _q()]
    results = [
        _result(hard=_hard(na=ALL_NA)),  # passes everything
        _result(cs_fail=("is_valid_restaurants",), hard=_hard(na=("valid_room_rule", "valid_room_type",
                                                                  "valid_transportation"))),
        _result(cs_fail=("is_not_absent",)),  # hard not run
        PlanResult("official", False),  # not delivered
    ]
    m = compute_metrics(queries, results)
    assert m["denominators"] == {"delivery_rate": 4, "commonsense_micro": 32, "commonsense_macro": 4,
                                 "hard_micro": 5, "hard_macro": 4, "final_pass_rate": 4}
    assert m["numerators"] == {"delivery_rate": 3, "commonsense_micro": 8 + 7 + 7, "commonsense_macro": 1,
                               "hard_micro": 1 + 2, "hard_macro": 2, "final_pass_rate": 1}
    assert m["rates"]["hard_micro"] == pytest.approx(3 / 5)


def test_fixed_split_denominators_are_checked():
    qs = [_q()] * 45
    assert hard_denominator(qs, "train") == 105
    with pytest.raises(ValueError, match="has 180 queries"):
        hard_denominator(qs, "validation")
    with pytest.raises(ValueError, match="unknown split"):
        hard_denominator(qs, "dev")
