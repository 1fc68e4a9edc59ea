"""The gate on hostile answers: overflowing numbers, degenerate answers at the size cap, any nesting depth;
and a fuzz property: it never raises, answers fast, and its reason is short."""

import json

import fastjsonschema
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.validators.travelplanner.plan.conversion import conversion_failure
from planshape.validators.travelplanner.plan.formats import (
    MAX_ANSWER_CHARS,
    _fast_validators,
    gate,
    gate_limits,
    plan_schema,
    to_upstream,
)

from ..fuzz import FUZZ, timed
from .test_plan_format import STRUCTURED_DAY

TAXI = {"mode": "taxi", "from": "Rockford", "to": "Chicago", "cost": 0}
# CPU seconds: the gate's own work stays in single milliseconds; the bound leaves a wide margin.
FAST = 0.25


def _with_cost(literal: str) -> str:
    return json.dumps([dict(STRUCTURED_DAY, transportation=TAXI)]).replace('"cost": 0', f'"cost": {literal}')


@pytest.mark.parametrize(("literal", "reason"), [
    ("9" * 400, "day 1, field 'transportation.cost': a number over 1e+15"),
    ("1e400", "day 1, field 'transportation.cost': inf is not a finite number"),
    ("-1e400", "day 1, field 'transportation.cost': -inf is not a finite number"),
    ("1e300", "day 1, field 'transportation.cost': a number over 1e+15"),
])
def test_overflowing_numbers_are_rejected_with_a_reason(literal, reason):
    result = gate(_with_cost(literal))
    assert not result.ok and reason in result.reason


def test_a_large_integer_day_number_is_rejected_not_converted():
    result = gate([dict(STRUCTURED_DAY, days=10**400)])
    assert not result.ok and "day 1, field 'days'" in result.reason


def _cap(unit: str) -> str:
    return "[" + ",".join([unit] * ((MAX_ANSWER_CHARS - 2) // (len(unit) + 1))) + "]"


@pytest.mark.parametrize("answer", [
    _cap("{}"), _cap("0"), _cap("[]"), _cap('""'), _cap("null"),
    json.dumps([{"days": 1, "breakfast": {"name": "x" * 99_000}}]),
    json.dumps({f"k{i}": 0 for i in range(8000)}),
    json.dumps([[{"a": [0] * 5000}]] * 3),
    json.dumps([dict(STRUCTURED_DAY, attraction=[{"name": "x", "city": "y", "z": 1}] * 20, days=d)
                for d in range(1, 31)]),
], ids=["dicts", "zeros", "lists", "strings", "nulls", "long field", "wide object", "long inner list",
        "30 days of bad attractions"])
def test_degenerate_answers_at_the_cap_are_rejected_fast(answer):
    gate("[]")  # compile the validators first
    result, seconds = timed(lambda: gate(answer))
    assert not result.ok and result.reason
    assert seconds < FAST, f"{seconds:.3f}s"


def test_valid_plan_at_the_cap_is_accepted_fast():
    day = dict(STRUCTURED_DAY, transportation=None, city={"stay": "Rockford"},
               attraction=[{"name": f"A{k}-" + "y" * 190, "city": "Rockford"} for k in range(13)])
    answer = json.dumps([dict(day, days=d) for d in range(1, 31)])
    assert len(answer) > 0.9 * MAX_ANSWER_CHARS
    gate("[]")
    result, seconds = timed(lambda: gate(answer))
    assert result.ok, result.reason
    assert seconds < FAST, f"{seconds:.3f}s"


@pytest.mark.parametrize(("answer", "reason"), [
    ([1] * 31, "plan: a list of 31 items, over the limit of 30"),
    ([dict(STRUCTURED_DAY, attraction=[{"name": "a", "city": "b"}] * 21)], "day 1, field 'attraction': a list of 21"),
    ([dict(STRUCTURED_DAY, dinner={"name": "x" * 301, "city": "B"})], "day 1, field 'dinner.name': text of 301"),
    ([{"k" * 301: 1}], "day 1: a field name of 301 characters"),
    ([dict(STRUCTURED_DAY, attraction=[[[1]]])], "day 1, field 'attraction.0.0': nested deeper than 4"),
    ([{1: "x"}], "day 1: field names must be text, not int"),
    ([(1, 2)], "day 1: tuple is not a JSON type"),
    ([float("nan")], "day 1: nan is not a finite number"),
    ([dict(STRUCTURED_DAY, lunch={"name": "Caf\ud800", "city": "B"})], "day 1, field 'lunch.name': text holds a lone"),
    ('[{"\\udfff": 1}]', "day 1: a field name holds a lone surrogate"),
    ([STRUCTURED_DAY, dict(STRUCTURED_DAY, breakfast={"name": "X"})], "day 2, field 'breakfast'"),
])
def test_limit_reasons_name_the_day_and_field(answer, reason):
    result = gate(answer)
    assert not result.ok and reason in result.reason


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [5, 1_000, 100_000])
def test_any_nesting_depth_is_a_reason_not_a_recursion_error(depth):
    assert "nested" in gate(_nested(depth)).reason
    assert not gate("[" * depth + "]" * depth).ok


# ------------------------------------------------------------------ the compiled fast path agrees with jsonschema

places = st.one_of(st.none(), st.fixed_dictionaries(
    {"name": st.text(max_size=4), "city": st.text(max_size=4)},
    optional={"x": st.integers()}))
days = st.fixed_dictionaries(
    {"days": st.one_of(st.integers(-1, 31), st.floats(0, 31), st.booleans(), st.text(max_size=2)),
     "city": st.one_of(st.fixed_dictionaries({"stay": st.text(max_size=3)}),
                       st.fixed_dictionaries({"from": st.text(max_size=3), "to": st.text(max_size=3)}),
                       st.text(max_size=3)),
     "transportation": st.one_of(st.none(), st.fixed_dictionaries(
         {"mode": st.sampled_from(["flight", "taxi", "self-driving", "bus"]), "from": st.just("A"), "to": st.just("B")},
         optional={"flight_number": st.from_regex(r"F[0-9]{1,3}\n?|f1", fullmatch=True),
                   "cost": st.one_of(st.integers(-2, 5), st.floats(-1, 5), st.text(max_size=2)),
                   "departure_time": st.sampled_from(["9:05", "09:05", "9:5", "x"]),
                   "duration": st.text(max_size=2)})),
     "breakfast": places, "attraction": st.lists(places, max_size=3), "lunch": places, "dinner": places},
    optional={"accommodation": places, "extra": st.integers()})


@settings(max_examples=300, deadline=None)
@given(st.lists(days, max_size=3))
def test_compiled_schema_agrees_with_jsonschema(plan):
    valid = jsonschema.Draft202012Validator(plan_schema()).is_valid(plan)
    try:
        _fast_validators()[0](plan)
        fast = True
    except fastjsonschema.JsonSchemaValueException:
        fast = False
    assert fast == valid
    # the gate takes what the schema takes, less what does not convert one-to-one (issue 16: day numbers, ...)
    gated = gate(plan)
    assert gated.ok == (valid and conversion_failure(plan, to_upstream(plan)) is None), gated.reason


# ------------------------------------------------------------------ fuzz: never raises, fast, bounded reason

any_text = st.text(st.characters(exclude_categories=()), max_size=30)  # lone surrogates included
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30) | any_text,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=40,
)
answers = st.one_of(
    json_values,
    json_values.map(json.dumps),
    st.text(max_size=200),
    st.binary(max_size=100),
    st.lists(days, max_size=4),
    st.lists(days, max_size=4).map(json.dumps),
    st.builds(lambda unit, n: "[" + ",".join([unit] * n) + "]",
              st.sampled_from(["{}", "0", "[]", '""', "null", "1e400", "9" * 400, "[[[[[]]]]]"]),
              st.integers(0, 20_000)),
)


@FUZZ
@given(answers)
def test_gate_never_raises_and_answers_fast(answer):
    result, seconds = timed(lambda: gate(answer))
    assert result.ok or (result.plan is None and 0 < len(result.reason) <= 300)
    assert seconds < FAST, f"{seconds:.3f}s"
    if result.ok:  # what passes is within every limit, and converts to encodable upstream strings
        assert all(isinstance(v, str) and v.encode("utf-8") for day in result.plan for k, v in day.items()
                   if k != "days")
    else:
        assert result.reason.encode("utf-8")


def test_limits_are_the_schemas():
    schema = plan_schema()
    limits = gate_limits()
    assert limits.max_items[0] == schema["maxItems"]
    assert limits.max_text == schema["$defs"]["text"]["maxLength"]


@pytest.mark.parametrize("unit", ["{}", "0", "[]", '""', "null"])
def test_scorer_rejects_degenerate_answers_at_the_cap_within_budget(memory_database, unit):
    from planshape.shaping.reward import Scorer

    from .helpers import ROCKFORD

    scorer = Scorer(memory_database, "strict")
    text = "<answer>" + _cap(unit) + "</answer>"
    scorer.score("<answer>[]</answer>", ROCKFORD)
    result, seconds = timed(lambda: scorer.score(text, ROCKFORD))
    assert result.reward == 0.0 and result.failure == "schema", result.reason
    assert seconds < 0.05, f"{seconds:.3f}s"  # docs/architecture.md: any single score at the answer-size cap <= 50 ms
