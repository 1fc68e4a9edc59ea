"""Class 6 of issue 16: a structured answer converts one-to-one, or the gate names the field that does not.

Each trick below got full reward on every gold plan before: the checks read the upstream-string
conversion, and a typed value holding a line break, ``;``, ``,`` or ``to`` was read as something else.
"""

from __future__ import annotations

import copy
import re

import fastjsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.plan.formats import _day_validator, _fast_validators, from_upstream, gate
from planshape.validators.travelplanner.text import attraction_items, before_parenthesis, extract_from_to, name_city

from .helpers import ROCKFORD, ROCKFORD_PLAN

GOLD = from_upstream(ROCKFORD_PLAN)


def _edit(path: tuple, value, base: list[dict] = GOLD) -> list[dict]:
    plan = copy.deepcopy(base)
    node = plan
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return plan


TRICKS = {
    "meal on two lines": ((0, "dinner", "name"), "Nonexistent Bistro\nCoco Bambu", "day 1, field 'dinner.name'"),
    "attraction read as two": ((1, "attraction", 0, "name"), "Burpee Museum of Natural History, Rockford;Midway",
                               "day 2, field 'attraction.0.name'"),
    "city that travels on": ((0, "city", "to"), "Rockford, then on to Paris", "day 1, field 'city.to'"),
    "transport that travels on": ((0, "transportation", "to"), "Rockford, then on to Paris",
                                  "day 1, field 'transportation.to'"),
    "leg read as another": ((2, "transportation", "from"), "Chicago to Rockford", "day 3, field 'transportation"),
    "stay read as travel": ((1, "city", "stay"), "Rockford from here", "day 2, field 'city.stay'"),
    # Each of the city rules alone (mutation testing: a rule joined to the next by `and` passed every case above)
    "stay on two lines": ((1, "city", "stay"), "Rockford\u2028Aurora", "day 2, field 'city.stay'"),
    "travel city on two lines": ((0, "city", "from"), "St. Petersburg\u2028Tampa", "day 1, field 'city.from'"),
    "travel city with a comma": ((0, "city", "from"), "St. Petersburg, Tampa", "day 1, field 'city.from'"),
    "travel city read on as the leg": ((0, "city", "from"), "St. Petersburg to Tampa", "day 1, field 'city.to'"),
    "accommodation city with a comma": ((0, "accommodation", "city"), "Chicago, Rockford",
                                        "day 1, field 'accommodation.city'"),
    "day numbered 30": ((1, "days"), 30, "day 2, field 'days'"),
    "flight number with a newline": ((0, "transportation", "flight_number"), "F3573\n659",
                                     "day 1, field 'transportation.flight_number'"),
}


def test_the_gold_plan_passes_the_gate_and_strict(database):
    result = gate(GOLD)
    assert result.ok and result.plan == ROCKFORD_PLAN
    assert check_plan(result.plan, ROCKFORD, database, "strict").final_pass


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_a_field_the_checker_would_misread_is_rejected_by_path(trick):
    path, value, where = TRICKS[trick]
    result = gate(_edit(path, value))
    assert not result.ok and result.reason.startswith(where), result.reason
    assert "cannot be checked" not in result.reason


@pytest.mark.parametrize("value", ["F1\n", "F1\r", "F\n1", "12:30\n"])
def test_both_schema_validators_give_one_answer_on_line_ends(value):
    """``$`` is the end of the text for both (ECMA-262): Python's ``$`` alone would accept ``"F1\\n"``."""
    key = "departure_time" if ":" in value else "flight_number"
    plan = _edit((0, "transportation", key), value)
    _, fast_day = _fast_validators()
    with pytest.raises(fastjsonschema.JsonSchemaValueException):
        fast_day(plan[0])
    assert not _day_validator().is_valid(plan[0])
    if value.strip() != value:  # a line end after the value is spacing: the gate tidies it away (issue 33)
        assert gate(plan).ok and gate(plan).structured[0]["transportation"][key] == value.strip()
        return
    reason = gate(plan).reason
    assert not gate(plan).ok and "does not match" in reason
    assert reason.startswith(f"day 1, field 'transportation.{key}'")


TEXT = st.lists(st.sampled_from(list("ab ,;()\n\r\u2028") + ["to ", " from ", " to "]), min_size=1,
                max_size=8).map("".join)


@settings(max_examples=300, deadline=None)
@given(name=TEXT, city=TEXT, to=TEXT, where=st.sampled_from(["dinner", "attraction", "accommodation"]))
def test_every_accepted_answer_reads_back_as_typed(name, city, to, where):
    """Whatever the gate accepts, the checks' parsers read back exactly what was typed."""
    place = {"name": name, "city": city}
    plan = _edit((1, where), [place] if where == "attraction" else place)
    plan = _edit((0, "city", "to"), to, plan) if to.strip() else plan
    result = gate(plan)
    if not result.ok:
        assert result.reason.startswith("day ") and "cannot be checked" not in result.reason
        return
    text = result.plan[1][where]
    if where == "attraction":
        items = attraction_items(text, False)
        assert len(items) == 1
        text = items[0]
    assert name_city(text) == (name.strip(), before_parenthesis(city.strip()).strip())
    tidied = " ".join(plan[0]["city"]["to"].replace("\t", " ").split(" ")).strip()  # spacing is tidied
    assert extract_from_to(result.plan[0]["current_city"]) == ("St. Petersburg", re.sub(" +", " ", tidied))
