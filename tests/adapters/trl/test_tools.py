"""The tools as TRL sees them: schemas derived by transformers equal planshape's, calls equal the toolbox's."""

from __future__ import annotations

from .conftest import require_trl

require_trl("tools")  # TRL's tool loop

import pytest
from transformers.utils import get_json_schema

CALLS = {
    "search_flights": {"origin": "Harborview", "destination": "Lindenfield", "date": "2022-03-10"},
    "search_accommodations": {"city": "Lindenfield"},
    "search_restaurants": {"city": "Lindenfield"},
    "search_attractions": {"city": "Lindenfield"},
    "search_ground_transportation": {"origin": "Harborview", "destination": "Lindenfield", "mode": "taxi"},
    "get_cities": {"state": "Eastvale"},
    "calculator": {"expression": "(120 + 95) * 2"},
}


@pytest.fixture(scope="module")
def tools(shaper):
    from planshape.adapters.trl.tools import planner_tools

    return {tool.__name__: tool for tool in planner_tools(shaper)}


def test_schemas_match_the_facade(tools, shaper):
    assert list(tools) == [s["function"]["name"] for s in shaper.tool_schemas] and len(tools) == 7
    for schema in shaper.tool_schemas:
        want = schema["function"]
        got = get_json_schema(tools[want["name"]])["function"]
        assert got["description"] == want["description"]
        assert got["parameters"]["required"] == want["parameters"]["required"]
        assert {k: (v["type"], v["description"]) for k, v in got["parameters"]["properties"].items()} == \
            {k: (v["type"], v["description"]) for k, v in want["parameters"]["properties"].items()}


def test_calls_return_the_toolbox_text(tools, shaper):
    box = shaper.tools()
    for name, arguments in CALLS.items():
        text = tools[name](**arguments)
        assert text == box.call(name, arguments) and not text.startswith("Error")
    assert tools["calculator"](expression="(120 + 95) * 2") == "430"


@pytest.mark.parametrize("name, arguments", [
    ("calculator", {}), ("calculator", {"expression": "1/0"}), ("calculator", {"expr": "1"}),
    ("search_flights", {"origin": 3, "destination": None, "date": "tomorrow"}),
    ("search_accommodations", {"city": "Atlantis"}), ("get_cities", {"state": "x" * 5000}),
    ("search_ground_transportation", {"origin": "Harborview", "destination": "Lindenfield", "mode": "boat"}),
])
def test_bad_calls_come_back_as_text(tools, name, arguments):
    assert tools[name](**arguments).startswith("Error:")


def test_chat_template_renders_every_tool(tools, tokenizer, shaper, sample_records):
    text = tokenizer.apply_chat_template(shaper.messages(sample_records[0]), tools=list(tools.values()),
                                         tokenize=False, add_generation_prompt=True)
    for schema in shaper.tool_schemas:
        assert f'"name": "{schema["function"]["name"]}"' in text
        assert schema["function"]["description"] in text
