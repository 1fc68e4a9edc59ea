"""The gate's day rule as a property over orderings (issue 30): a structured answer's ``days`` read 1, 2, ...,
n in order, or the answer earns nothing.

The expected verdict is written here from the rule itself (``numbers == [1..n]``), not taken from the gate's
helpers: a gate that checks only the range of each number (``[1, 1, 3]``, ``[2, 1, 3]``, ``[3, 2, 1]``), only
the set, or only the first and last day fails these tests.
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.shaping.reward import Scorer
from planshape.validators.travelplanner.plan.answer import CLOSE, OPEN
from planshape.validators.travelplanner.plan.formats import from_upstream, gate

from .helpers import ROCKFORD, ROCKFORD_PLAN

GOLD = from_upstream(ROCKFORD_PLAN)  # 3 days


@pytest.fixture(scope="module")
def train_structured(train) -> list[list[dict]]:
    """The 5- and 7-day train gold plans as structured answers."""
    return [from_upstream(plan[: query.days]) for query, plan in train if query.days > 3]


def numbered(plan: list[dict], numbers: list[int]) -> list[dict]:
    return [{**day, "days": number} for day, number in zip(plan, numbers, strict=True)]


def in_order(numbers: list[int]) -> bool:
    return numbers == list(range(1, len(numbers) + 1))


def test_every_numbering_of_a_three_day_plan_from_0_to_4():
    accepted = []
    for numbers in itertools.product(range(5), repeat=len(GOLD)):
        result = gate(json.dumps(numbered(GOLD, list(numbers))))
        assert result.ok == in_order(list(numbers)), (numbers, result.reason)
        if not result.ok:
            assert "days" in result.reason, result.reason  # the reason names the field
        accepted += [numbers] if result.ok else []
    assert accepted == [(1, 2, 3)]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_permuted_or_repeated_numbering_of_a_longer_plan_is_refused(train_structured, data):
    plan = data.draw(st.sampled_from(train_structured))
    n = len(plan)
    numbers = data.draw(st.one_of(
        st.permutations(range(1, n + 1)),
        st.lists(st.integers(1, n), min_size=n, max_size=n),  # each day in range, repeats allowed
    ))
    assert gate(numbered(plan, list(numbers))).ok == in_order(list(numbers)), numbers


def test_the_reward_of_a_misnumbered_gold_answer_is_zero(database):
    scorer = Scorer(database, mode="official", schedule="stage1")
    answer = lambda numbers: f"{OPEN}{json.dumps(numbered(GOLD, numbers))}{CLOSE}"  # noqa: E731
    assert scorer.score(answer([1, 2, 3]), ROCKFORD).reward > 0  # the gold numbering earns the reward
    for numbers in ([1, 1, 3], [2, 1, 3], [3, 2, 1], [1, 3, 2], [1, 2, 2]):
        scored = scorer.score(answer(numbers), ROCKFORD)
        assert (scored.reward, scored.failure) == (0.0, "schema"), (numbers, scored)
