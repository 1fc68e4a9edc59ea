"""The structured format, its schema, and the gate over untrusted answer text."""

import json

import jsonschema
import pytest
from planshape.validators.travelplanner.plan.formats import (
    FormatError,
    from_upstream,
    gate,
    plan_schema,
    to_upstream,
)

from .helpers import ROCKFORD_PLAN

STRUCTURED_DAY = {
    "days": 1,
    "city": {"from": "St. Petersburg", "to": "Rockford"},
    "transportation": {"mode": "flight", "flight_number": "F3573659", "from": "St. Petersburg", "to": "Rockford",
                       "departure_time": "15:40", "arrival_time": "17:04"},
    "breakfast": None, "attraction": [], "lunch": None,
    "dinner": {"name": "Coco Bambu", "city": "Rockford"},
    "accommodation": {"name": "Pure luxury one bdrm + sofa bed on Central Park", "city": "Rockford"},
}


def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(plan_schema())


def test_structured_to_upstream_strings():
    (day,) = to_upstream([STRUCTURED_DAY])
    assert day == {k: v for k, v in ROCKFORD_PLAN[0].items()}


def test_ground_transport_strings_round_trip():
    text = "Self-driving, from Indianapolis to Grand Junction(Colorado), duration: 19 hours 21 mins, " \
           "distance: 2,132 km, cost: 106"
    day = dict(ROCKFORD_PLAN[0], transportation=text)
    structured = from_upstream([day])
    assert structured[0]["transportation"] == {
        "mode": "self-driving", "from": "Indianapolis", "to": "Grand Junction(Colorado)",
        "duration": "19 hours 21 mins", "distance": "2,132 km", "cost": 106}
    assert to_upstream(structured)[0]["transportation"] == text


def test_upstream_strings_without_structured_form_are_named():
    day = dict(ROCKFORD_PLAN[0], transportation="Drive from A to B")
    with pytest.raises(FormatError, match="day 1 transportation"):
        from_upstream([day])


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "not valid JSON"),
        ("[NaN]", "NaN is not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        ("[" * 50_000 + "]" * 50_000, "nested too deeply"),
        ("x" * 100_001, "over the 100000 limit"),
        ("{}", "plan: {} is not of type 'array'"),
        ("[]", "should be non-empty"),
        (json.dumps([dict(STRUCTURED_DAY, city="Rockford")]), "day 1, field 'city'"),
        (json.dumps([STRUCTURED_DAY, dict(STRUCTURED_DAY, breakfast={"name": "X"})]), "day 2, field 'breakfast'"),
        (json.dumps([dict(STRUCTURED_DAY, transportation={"mode": "teleport", "from": "A", "to": "B"})]),
         "day 1, field 'transportation'"),
        (json.dumps([dict(STRUCTURED_DAY, days="one")]), "day 1, field 'days'"),
        (json.dumps([{k: v for k, v in STRUCTURED_DAY.items() if k != "lunch"}]), "'lunch' is a required property"),
        # a repeated key: the parser keeps the last value, a reader may take the first (one answer, one meaning)
        (json.dumps([STRUCTURED_DAY])[:-2] + ', "lunch": null}]', "names the key 'lunch' twice"),
        ('[{"days": 1, "days": 1}]', "names the key 'days' twice"),
        (json.dumps([dict(STRUCTURED_DAY, lunch={"name": "X", "city": "Rockford"})]).replace(
            '"city": "Rockford"}', '"city": "Rockford", "name": "Y"}', 1), "names the key 'name' twice"),
    ],
)
def test_gate_says_why(answer, reason):
    result = gate(answer)
    assert not result.ok and result.plan is None
    assert reason in result.reason


def test_gate_accepts_valid_text_and_values():
    for answer in (json.dumps([STRUCTURED_DAY]), [STRUCTURED_DAY]):
        result = gate(answer)
        assert result.ok, result.reason
        assert result.plan == to_upstream([STRUCTURED_DAY])


def test_cli_schema_prints_the_published_schema(capsys):
    from planshape.shaping.cli import main

    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == plan_schema()
