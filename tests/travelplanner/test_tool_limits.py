"""Tools and calculator on hostile calls: every argument path and type gets a readable answer, every response
fits ``max_chars``; and a fuzz property: never raises, fast, bounded output."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from planshape.validators.travelplanner.agent.calculator import CalculatorError, calculate
from planshape.validators.travelplanner.agent.tools import DEFAULT_MAX_CHARS, TOOL_SCHEMAS, ToolBox

from ..fuzz import FUZZ, timed

FAST = 0.25  # CPU seconds; a tool call takes milliseconds


@pytest.fixture(scope="module")
def tools(memory_database):
    return ToolBox(memory_database)


@pytest.mark.parametrize(("expression", "value"), [
    ("max(5)", 5), ("min(2)", 2), ("max(1, 7, 3)", 7), ("min(-1)", -1), ("abs(-3)", 3), ("round(2.567, 2.0)", 2.57),
])
def test_min_max_of_any_arity(expression, value):
    assert calculate(expression) == pytest.approx(value)


@pytest.mark.parametrize(("expression", "message"), [
    ("round(2.5, 1.5)", "whole number"), ("round(2.5, 11)", "between 0 and 10"), ("max()", r"unexpected '\)'"),
    ("abs(1, 2)", r"abs takes 1\.\.1 arguments"),
])
def test_calculator_argument_errors_are_messages(expression, message):
    with pytest.raises(CalculatorError, match=message):
        calculate(expression)


@pytest.mark.parametrize("name", [["calculator"], {"a": 1}, 3, None, b"calculator", 2.5])
def test_a_non_text_tool_name_is_named_in_the_error(tools, name):
    out = tools.call(name, {"expression": "1+1"})
    assert out.startswith("Error: unknown tool: a tool name is text, not ")


def test_calculator_max_of_one_through_the_tool(tools):
    assert tools.call("calculator", {"expression": "max(5)"}) == "5"


def test_unknown_argument_names_are_not_echoed_in_full(tools):
    arguments = {"expression": "1", **{f"arg{i}-" + "z" * 30: 1 for i in range(12_000)}}
    out = tools.call("calculator", arguments)
    assert out.startswith("Error: calculator got unexpected 'arg0-") and "and 11997 more" in out
    assert len(out) < 400


@pytest.mark.parametrize("max_chars", [1, 10, 40, 100, 300, DEFAULT_MAX_CHARS])
def test_every_response_respects_max_chars(memory_database, max_chars):
    tools = ToolBox(memory_database, max_chars=max_chars)
    calls = [("search_restaurants", {"city": "Chicago"}), ("book", {}), ("calculator", {"x" * 40: 1}),
             ("search_flights", {"origin": "Nowhere", "destination": "B", "date": "x"}),
             ("search_ground_transportation", {"origin": "Chicago", "destination": "Rockford", "mode": "taxi"}),
             ("get_cities", {"state": "Texas"}), ("calculator", {"expression": "1/3"}), (None, "{")]
    for name, arguments in calls:
        out = tools.call(name, arguments)
        assert 0 < len(out) <= max_chars, (name, len(out))


@pytest.mark.parametrize(("name", "arguments"), [
    ("search_restaurants", {"city": "Chicago\ud800"}), ("get_cities", {"state": "\udfff"}),
    ("calculator", {"expression": "1+\ud800"}), ("book\ud800", {}), ("calculator", {"\ud800": 1}),
    ("calculator", '{"expression": "\\ud800"}'),
])
def test_lone_surrogates_are_refused_and_never_echoed(tools, name, arguments):
    out = tools.call(name, arguments)
    assert out.startswith("Error: ") and "the call failed" not in out
    out.encode("utf-8")  # a tokenizer can encode every response


@pytest.mark.parametrize("max_chars", [0, -5, 2.5, "100", True])
def test_max_chars_is_checked_at_start_up(memory_database, max_chars):
    with pytest.raises(ValueError, match="max_chars"):
        ToolBox(memory_database, max_chars=max_chars)


# ------------------------------------------------------------------ fuzz

scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=60)
           | st.text(st.characters(exclude_categories=()), max_size=20))  # lone surrogates included
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                          max_size=3), max_leaves=8)
names = st.one_of(st.sampled_from(sorted(TOOL_SCHEMAS)), values, st.text(max_size=300))
argument_names = st.one_of(*(st.sampled_from(list(s["function"]["parameters"]["properties"]))
                             for s in TOOL_SCHEMAS.values()), st.text(max_size=50))
arguments = st.one_of(
    st.dictionaries(argument_names, values, max_size=4),
    st.dictionaries(argument_names, st.text(max_size=250), max_size=3),
    st.dictionaries(argument_names, values, max_size=4).map(json.dumps),
    st.text(max_size=900), values,
    st.builds(lambda n: {f"k{i}": i for i in range(n)}, st.integers(0, 5000)),
)
cities = st.sampled_from(["Chicago", "Rockford", "Dallas(Texas)", "St. Petersburg", "chicago", " ", "New York"])


@FUZZ
@given(names, arguments, st.integers(1, 20_000))
def test_no_tool_call_raises_or_overflows(memory_database, name, args, max_chars):
    tools = ToolBox(memory_database, max_chars=max_chars)
    out, seconds = timed(lambda: tools.call(name, args))
    assert isinstance(out, str) and 0 < len(out) <= max_chars and out.encode("utf-8")
    assert "the call failed" not in out  # every failure has its own message
    assert seconds < FAST, f"{seconds:.3f}s"


@FUZZ
@given(st.sampled_from(sorted(TOOL_SCHEMAS)), cities, cities, st.sampled_from(["2022-03-16", "2022-3-16", "x"]),
       st.sampled_from(["taxi", "self-driving", "TAXI", "walk"]), st.text(max_size=40), st.integers(1, 3000))
def test_well_formed_calls_stay_within_limits(memory_database, name, a, b, date, mode, text, max_chars):
    tools = ToolBox(memory_database, max_chars=max_chars)
    pool = {"origin": a, "destination": b, "date": date, "mode": mode, "city": a, "state": "Texas",
            "expression": text}
    params = TOOL_SCHEMAS[name]["function"]["parameters"]["required"]
    out, seconds = timed(lambda: tools.call(name, {p: pool[p] for p in params}))
    assert 0 < len(out) <= max_chars and "the call failed" not in out
    assert seconds < FAST, f"{seconds:.3f}s"


expressions = st.text(alphabet="0123456789.+-*/()×÷, maxinbsrud \t", max_size=300)


@FUZZ
@given(st.one_of(expressions, st.text(max_size=300), values))
def test_calculator_returns_a_number_or_its_own_error(expression):
    try:
        value, seconds = timed(lambda: calculate(expression))
    except CalculatorError as exc:
        assert 0 < len(str(exc)) <= 400
        return
    assert isinstance(value, float | int) and abs(value) <= 1e15
    assert seconds < FAST
