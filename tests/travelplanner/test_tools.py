"""The seven agent tools on the real database and the sample world, every error path, and the calculator."""

import csv
import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from planshape.validators.travelplanner.agent.calculator import CalculatorError, calculate
from planshape.validators.travelplanner.agent.tools import TOOL_SCHEMAS, ToolBox


def rows(text):
    """Parse a tool's CSV table, as a model (or its harness) would."""
    lines = [line for line in text.splitlines() if not line.startswith("[truncated")]
    return list(csv.DictReader(lines))


@pytest.fixture(scope="module", params=["real", "sample"])
def world(request, memory_database):
    from planshape.validators.travelplanner.sample import sample_database
    from planshape.validators.travelplanner.store.database import load_database

    if request.param == "real":
        return ToolBox(memory_database, max_chars=100_000), {
            "origin": "St. Petersburg", "destination": "Rockford", "date": "2022-03-16", "flight": "F3573659",
            "city": "Rockford", "restaurant": "Coco Bambu", "attraction": "Burpee Museum of Natural History",
            "hotel": "Pure luxury one bdrm + sofa bed on Central Park", "drive": ("Detroit", "Norfolk", 57, 1144),
            "state": "Texas", "state_city": "Dallas"}
    return ToolBox(load_database(sample_database()), max_chars=100_000), {
        "origin": "Harborview", "destination": "Lindenfield", "date": "2022-03-10", "flight": "F9000101",
        "city": "Lindenfield", "restaurant": "Linden Tandoor", "attraction": "Old Mill Park",
        "hotel": "Linden Garden Suite", "drive": ("Lindenfield", "Marlow Springs", 6, 124),
        "state": "Eastvale", "state_city": "Marlow Springs"}


def test_search_flights(world):
    tools, w = world
    found = rows(tools.call("search_flights", {"origin": w["origin"], "destination": w["destination"],
                                               "date": w["date"]}))
    flight = next(r for r in found if r["flight_number"] == w["flight"])
    assert flight["from"] == w["origin"] and flight["to"] == w["destination"] and flight["date"] == w["date"]
    assert set(flight) >= {"price", "departure_time", "arrival_time", "duration"}
    none = tools.call("search_flights", {"origin": w["destination"], "destination": w["origin"], "date": "2022-01-01"})
    assert none == f"There is no flight from {w['destination']} to {w['origin']} on 2022-01-01."


@pytest.mark.parametrize(("tool", "key", "fields"), [
    ("search_restaurants", "restaurant", {"cuisines", "average_cost", "rating"}),
    ("search_attractions", "attraction", {"address", "phone", "website"}),
    ("search_accommodations", "hotel", {"room_type", "price", "minimum_nights", "maximum_occupancy", "house_rules"}),
])
def test_city_searches(world, tool, key, fields):
    tools, w = world
    found = rows(tools.call(tool, {"city": w["city"]}))
    assert all(r["city"] == w["city"] for r in found)
    assert w[key] in {r["name"] for r in found}
    assert fields <= set(found[0])
    assert rows(tools.call(tool, {"city": f"{w['city']}(Somewhere)"})) == found  # a (State) suffix is dropped


def test_ground_transportation_costs(world):
    tools, w = world
    origin, destination, drive_cost, taxi_cost = w["drive"]
    drive = tools.call("search_ground_transportation", {"origin": origin, "destination": destination,
                                                        "mode": "self-driving"})
    assert drive.startswith(f"Self-driving, from {origin} to {destination}, duration: ")
    assert drive.endswith(f"cost: {drive_cost}")
    taxi = tools.call("search_ground_transportation", {"origin": origin, "destination": destination, "mode": "Taxi"})
    assert taxi.endswith(f"cost: {taxi_cost}")
    assert "no valid information" in tools.call("search_ground_transportation", {
        "origin": w["destination"], "destination": w["destination"], "mode": "taxi"})


def test_get_cities(world):
    tools, w = world
    assert w["state_city"] in {r["city"] for r in rows(tools.call("get_cities", {"state": w["state"]}))}


def test_calculator_tool(world):
    tools, _ = world
    assert tools.call("calculator", {"expression": "(474 + 346) * 2 + 3 * 95.5"}) == "1926.5"
    assert tools.call("calculator", {"expression": "1/0"}) == "Error: division by zero"


@pytest.mark.parametrize(("name", "arguments", "message"), [
    ("search_flights", {"origin": "Atlantis", "destination": "Rockford", "date": "2022-03-16"},
     "no city named 'Atlantis'"),
    ("search_flights", {"origin": "rockford", "destination": "Dallas", "date": "2022-03-16"},
     "Did you mean 'Rockford'"),
    ("search_flights", {"origin": "Dallas", "destination": "Rockford", "date": "16/03/2022"}, "YYYY-MM-DD"),
    ("search_flights", {"origin": "Dallas", "destination": "Rockford", "date": "2022-02-30"}, "YYYY-MM-DD"),
    ("search_flights", {"origin": "Dallas", "destination": "Rockford"}, "missing 'date'"),
    ("search_flights", {"origin": 3, "destination": "Rockford", "date": "2022-03-16"}, "'origin' must be text"),
    ("search_restaurants", {"city": ""}, "'city' is empty"),
    ("search_restaurants", {"city": "x" * 500}, "longer than"),
    ("search_restaurants", {"town": "Rockford"}, "missing 'city'"),
    ("search_restaurants", {"city": "Rockford", "cuisine": "Tea"}, "unexpected 'cuisine'"),
    ("search_restaurants", "{not json", "not valid JSON"),
    ("search_restaurants", [1, 2], "must be a JSON object"),
    ("search_ground_transportation", {"origin": "Detroit", "destination": "Norfolk", "mode": "bus"},
     "'self-driving' or 'taxi'"),
    ("get_cities", {"state": "Atlantis"}, "no state named 'Atlantis'"),
    ("book_hotel", {}, "unknown tool 'book_hotel'"),
    (None, None, "unknown tool"),
    ("calculator", {"expression": "2 ** 8"}, "unexpected '*'"),
])
def test_bad_calls_return_readable_errors(memory_database, name, arguments, message):
    result = ToolBox(memory_database).call(name, arguments)
    assert result.startswith("Error: ") and message in result


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from([*TOOL_SCHEMAS, "other"]),
       arguments=st.none() | st.text(max_size=50) | st.dictionaries(
           st.sampled_from(["city", "origin", "destination", "date", "mode", "state", "expression", "x"]),
           st.none() | st.integers() | st.text(max_size=30) | st.lists(st.integers(), max_size=2), max_size=4))
def test_no_call_raises(memory_database, name, arguments):
    assert isinstance(ToolBox(memory_database).call(name, arguments), str)


def test_truncation_note(memory_database):
    out = ToolBox(memory_database, max_chars=300).call("search_restaurants", {"city": "Chicago"})
    assert len(out) <= 300
    assert out.splitlines()[-1].startswith("[truncated: showing ") and out.splitlines()[-1].endswith(" rows]")
    full = ToolBox(memory_database, max_chars=10**6).call("search_restaurants", {"city": "Chicago"})
    assert "truncated" not in full


def test_schemas_are_openai_style_and_valid():
    for name, schema in TOOL_SCHEMAS.items():
        assert schema["type"] == "function" and schema["function"]["name"] == name
        jsonschema.Draft202012Validator.check_schema(schema["function"]["parameters"])
    assert len(TOOL_SCHEMAS) == 7
    json.dumps(TOOL_SCHEMAS)


# ---------------------------------------------------------------- calculator

@pytest.mark.parametrize(("expression", "value"), [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("-3 - -3", 0), ("10 / 4", 2.5), ("12 ÷ 4 × 3", 9),
    ("round(10 / 3, 2)", 3.33), ("max(1, 2, 3) + min(4, 5)", 7), ("abs(-5.5)", 5.5), (".5 + 1.", 1.5),
    ("round(2.5)", 2), ("-(-(2))", 2),
])
def test_calculator_values(expression, value):
    assert calculate(expression) == pytest.approx(value)


@pytest.mark.parametrize(("expression", "message"), [
    ("1/0", "division by zero"), ("", "empty"), ("1 +", "ends too early"), ("(1 + 2", "ends too early"),
    ("1 2", "unexpected '2'"), ("__import__('os')", "unexpected '__import__'"), ("9" * 17, "exceeds the limit"),
    ("(" * 50 + "1" + ")" * 50, "nested deeper"), ("1+" * 200 + "1", "longer than"), ("round(1, 2, 3)", "takes"),
    ("round(1, 20)", "between 0 and 10"), ("1e5", "unexpected 'e'"),
])
def test_calculator_errors(expression, message):
    with pytest.raises(CalculatorError, match=message):
        calculate(expression)


@st.composite
def expressions(draw, depth=0):
    """(text, value, largest intermediate) built together, so the test needs no evaluator of its own."""
    if depth > 3 or draw(st.booleans()):
        n = draw(st.integers(0, 1000))
        return str(n), float(n), float(n)
    left, lv, lp = draw(expressions(depth + 1))
    right, rv, rp = draw(expressions(depth + 1))
    op = draw(st.sampled_from("+-*"))
    value = {"+": lv + rv, "-": lv - rv, "*": lv * rv}[op]
    return f"({left} {op} {right})", value, max(lp, rp, abs(value))


@settings(max_examples=300, deadline=None)
@given(expressions())
def test_calculator_agrees_with_constructed_values(triple):
    text, value, peak = triple
    if peak > 1e15:
        with pytest.raises(CalculatorError, match="exceeds the limit"):
            calculate(text)
    else:
        assert calculate(text) == pytest.approx(value)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=60))
def test_calculator_only_raises_its_own_error(text):
    try:
        calculate(text)
    except CalculatorError:
        pass
