"""Acceptance: the 45 train gold plans score 100% on every metric, in both modes (notes §9 fixture)."""

import json

import pytest
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.evaluation.metrics import compute_metrics
from planshape.validators.travelplanner.plan.formats import from_upstream, gate, to_upstream


@pytest.mark.parametrize("mode", ["official", "strict"])
def test_gold_plans_pass_every_metric(train, database, mode):
    queries = [q for q, _ in train]
    results = [check_plan(plan, q, database, mode) for q, plan in train]
    metrics = compute_metrics(queries, results, split="train")
    assert metrics["denominators"]["hard_micro"] == 105
    assert metrics["denominators"]["commonsense_micro"] == 360
    assert metrics["rates"] == {k: 1.0 for k in metrics["rates"]}, metrics


def test_general_hard_denominator_equals_train_fixed_one(train):
    from planshape.validators.travelplanner.evaluation.metrics import hard_denominator

    assert hard_denominator([q for q, _ in train]) == 105


def test_gold_plans_round_trip_through_structured_format(train, database):
    for query, plan in train:
        structured = from_upstream(plan)
        gated = gate(json.dumps(structured))
        assert gated.ok, gated.reason
        assert gated.plan == to_upstream(structured)
        assert [d for d in plan if d] == gated.plan  # exact strings survive the round trip
        assert check_plan(gated.plan, query, database, "strict").final_pass
