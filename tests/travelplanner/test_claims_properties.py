"""Issue 16's rules fail a mutated gold plan only when the mutation states something false, and every
false mutation that the official evaluator passes fails strict (no claim goes unchecked)."""

from __future__ import annotations

import dataclasses

import pytest
from planshape.validators.travelplanner.checks.modes import STRICT
from planshape.validators.travelplanner.checks.verdicts import check_plan

from .mutations import mutations

NEW_RULES = ("unchecked_stated_values", "several_places_per_field", "unread_plan_parts", "two_places_at_once",
             "day_trip_any_distance", "teleport_between_days")
WITHOUT_NEW_RULES = dataclasses.replace(STRICT, name="strict-before-16", **dict.fromkeys(NEW_RULES, True))


def test_a_new_rule_fails_only_false_statements_and_every_false_one(train, memory_database):
    db = memory_database
    wrongly_failed, unchecked = [], []
    for k, (query, plan) in enumerate(train):
        for name, states_false, mutated in mutations(plan, query.days, db):
            strict = check_plan(mutated, query, db, "strict").final_pass
            if states_false is False and not strict and check_plan(mutated, query, db, WITHOUT_NEW_RULES).final_pass:
                wrongly_failed.append(f"{k}/{name}")
            if states_false is True and strict:
                unchecked.append(f"{k}/{name}")
    assert not wrongly_failed, f"a new rule fails a true restatement: {wrongly_failed[:5]}"
    assert not unchecked, f"strict passes a plan that states something false: {unchecked[:5]}"


def test_strict_verdicts_are_the_same_on_the_built_store(train, memory_database, database):
    """Every gold and mutated gold plan gets the same strict verdicts from the SQLite store as from the CSV
    directory (a reward worker uses the store; the tests and tolerances were measured on the CSV files)."""
    if database is memory_database:
        pytest.skip("compares the SQLite store with the CSV directory")
    differ = []
    for k, (query, plan) in enumerate(train):
        for name, _, mutated in [("gold", None, plan), *mutations(plan, query.days, memory_database)]:
            if check_plan(mutated, query, database, "strict").to_dict() != \
                    check_plan(mutated, query, memory_database, "strict").to_dict():
                differ.append(f"{k}/{name}")
    assert not differ, f"the stores disagree on {len(differ)} plans, e.g. {differ[:5]}"
