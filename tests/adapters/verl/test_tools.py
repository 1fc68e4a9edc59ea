"""The example tool YAML through VERL's tool loader; every tool executes, error paths included."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import asyncio

from planshape.adapters.verl.check import load_tools as load_all_tools  # VERL's loader of this release
from planshape.adapters.verl.tools import TOOL_CLASSES, SearchFlights

from .conftest import EXAMPLES

CALLS = {
    "search_flights": ({"origin": "Harborview", "destination": "Lindenfield", "date": "2022-03-10"},
                       "flight_number,price"),
    "search_accommodations": ({"city": "Lindenfield"}, "name,city,room_type,price"),
    "search_restaurants": ({"city": "Lindenfield"}, "name,city,cuisines,average_cost"),
    "search_attractions": ({"city": "Lindenfield"}, "name,city,address"),
    "search_ground_transportation": ({"origin": "Harborview", "destination": "Lindenfield", "mode": "taxi"},
                                     "Taxi, from Harborview to Lindenfield"),
    "get_cities": ({"state": "Eastvale"}, "city\nLindenfield"),
    "calculator": ({"expression": "(474 + 346) * 2 + 3 * 95"}, "1925"),
}
ERRORS = [
    ("search_flights", {"origin": "Atlantis", "destination": "Lindenfield", "date": "2022-03-10"}, "no city named"),
    ("search_flights", {"origin": "Harborview", "destination": "Lindenfield", "date": "March 10"}, "YYYY-MM-DD"),
    ("search_flights", {"origin": "Harborview"}, "missing"),
    ("search_accommodations", {"city": "Lindenfield", "stars": 5}, "unexpected"),
    ("search_ground_transportation", {"origin": "Harborview", "destination": "Lindenfield", "mode": "boat"},
     "mode must be"),
    ("get_cities", {"state": 7}, "must be text"),
    ("calculator", {"expression": "__import__('os')"}, "Error"),
    ("search_restaurants", ["Lindenfield"], "JSON object"),
]


@pytest.fixture()
def tools(example_env):
    loaded = load_all_tools(str(EXAMPLES / "tools.yaml"), None)
    return {t.name: t for t in loaded}


def _call(tool, parameters):
    async def run():
        instance, _ = await tool.create(create_kwargs={})
        try:
            return await tool.execute(instance, parameters, agent_data=None)
        finally:
            await tool.release(instance)

    return asyncio.run(run())


def test_the_yaml_builds_the_seven_tools(tools):
    assert sorted(tools) == sorted(c.tool_name for c in TOOL_CLASSES)
    for tool in tools.values():  # flat schemas: every parameter a described string, all required
        params = tool.tool_schema.function.parameters
        assert params.required == list(params.properties)
        assert all(p.type == "string" and p.description for p in params.properties.values())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_tool_executes(tools, name):
    parameters, expected = CALLS[name]
    response, reward, metrics = _call(tools[name], parameters)
    assert response.text.startswith(expected) or expected in response.text, response.text[:200]
    assert reward == 0.0 and metrics == {"error": 0.0}


@pytest.mark.parametrize(("name", "parameters", "message"), ERRORS)
def test_bad_calls_come_back_as_text(tools, name, parameters, message):
    response, _, metrics = _call(tools[name], parameters)
    assert response.text.startswith("Error:") and message in response.text
    assert metrics == {"error": 1.0}


def test_a_tool_config_without_settings_says_what_to_add():
    with pytest.raises(ValueError, match="needs 'planshape'"):
        SearchFlights({"type": "native"}, None)


def test_the_sandbox_is_opened_once_per_process(tools):
    stores = {id(t._shaper.tools().store) for t in tools.values()}
    assert len(stores) == 1


def test_the_yaml_needs_only_the_database(monkeypatch):
    monkeypatch.delenv("PLANSHAPE_CONFIG", raising=False)
    monkeypatch.setenv("PLANSHAPE_DATABASE", "sample")
    tools = {t.name: t for t in load_all_tools(str(EXAMPLES / "tools.yaml"), None)}
    assert _call(tools["calculator"], {"expression": "1 + 2"})[0].text == "3"
