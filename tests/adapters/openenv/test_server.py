"""The OpenEnv server through OpenEnv's own clients (``GenericEnvClient`` over the WebSocket session protocol,
``MCPToolClient`` for the tools): a scripted policy's tool calls get ``ToolBox.call``'s answers on the full
database, its answer the facade's reward, components and failure; bad output is a failing score or an error
result with a reason, and the session goes on."""

from __future__ import annotations

import json

import pytest
from openenv import GenericEnvClient
from openenv.core import MCPToolClient

from ...environments.cases import BAD_CALLS, cases, facade_view, good_calls
from ..metric_keys import expected_keys

NAME = "planshape-travelplanner"


def call(name, arguments):
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}


def text_of(observation: dict) -> str:
    result = observation["result"]
    return "".join(part["text"] for part in result["content"]) if isinstance(result, dict) else str(result)


def test_an_episode_over_the_session_protocol_scores_as_the_facade(served, shaper, train_records):
    box = shaper.tools()
    index = {r["query"]: i for i, r in enumerate(train_records)}
    with GenericEnvClient(base_url=served.url).sync() as env:
        for name, text, record in cases(train_records):
            reset = env.reset(index=index[record["query"]])
            assert reset.observation["messages"] == shaper.messages(record) and not reset.done
            assert [t["function"]["name"] for t in reset.observation["tools"]] == \
                [s["function"]["name"] for s in shaper.tool_schemas]
            for tool, arguments in good_calls(record):
                result = env.step(call(tool, arguments))
                assert text_of(result.observation) == box.call(tool, arguments) and not result.done
            final = env.step({"type": "answer", "text": text})
            want = facade_view(shaper.score(text, record, 0))
            got = final.observation["metadata"][NAME]
            assert final.done and final.reward == want["reward"], name
            assert {k: got[k] for k in want} == want, name
            assert set(got["metrics"]) == expected_keys(("core", "components", "failures", "monitor"))
            state = env.state()
            assert state["done"] and state["turns"] == 4 and state["tool_calls"] == 3
    assert want["reward"] < shaper.max_reward(0)
    gold = facade_view(shaper.score(cases(train_records)[0][1], train_records[0], 0))
    assert gold["reward"] == shaper.max_reward(0) and gold["success"]


def test_bad_output_never_breaks_the_session(served, shaper, train_records):
    with GenericEnvClient(base_url=served.url).sync() as env:
        env.reset(index=0)
        for name, arguments in BAD_CALLS:
            payload = call(name, arguments if isinstance(arguments, dict) else {"raw": arguments})
            result = env.step(payload)
            observation = result.observation
            assert not result.done
            assert observation.get("error") or text_of(observation).startswith("Error:"), (name, observation)
        with pytest.raises(Exception, match="(?i)valid|error"):  # not an action at all: refused with a reason
            env.step({"type": "call_tool", "tool_name": 3, "arguments": "not an object"})
        final = env.step({"type": "answer", "text": "I ran out of ideas."})  # the session is still there
        assert final.done and final.reward == 0.0
        assert final.observation["metadata"][NAME]["failure"] == "no_answer"
        assert final.observation["metadata"][NAME]["reason"]


def test_the_turn_cap_ends_an_unanswered_episode(shared_dir, settings, shaper):
    from planshape.adapters.openenv.server import build_app

    from .conftest import Served

    served = Served(build_app(settings, [str(shared_dir / "train.csv")], max_turns=3))
    try:
        with GenericEnvClient(base_url=served.url).sync() as env:
            env.reset(index=0)
            for _ in range(2):
                assert not env.step(call("calculator", {"expression": "1 + 1"})).done
            capped = env.step(call("calculator", {"expression": "1 + 1"}))
            assert capped.done and capped.reward == 0.0
            assert "turn cap" in capped.observation["metadata"][NAME]["reason"]
    finally:
        served.close()


def test_the_tools_over_mcp(served, shaper, train_records):
    box = shaper.tools()
    record = train_records[0]
    with MCPToolClient(base_url=served.url).sync() as env:
        env.reset(index=0)
        tools = {t.name: t for t in env.list_tools()}
        assert list(tools) == [s["function"]["name"] for s in shaper.tool_schemas]
        for schema in shaper.tool_schemas:
            spec = schema["function"]
            got = tools[spec["name"]].input_schema
            assert got["required"] == spec["parameters"]["required"]
            assert {k: v["description"] for k, v in got["properties"].items()} == \
                {k: v["description"] for k, v in spec["parameters"]["properties"].items()}
        for tool, arguments in good_calls(record):
            assert str(env.call_tool(tool, **arguments)) == box.call(tool, arguments)


def test_reset_choices_and_tasks(served, train_records):
    with GenericEnvClient(base_url=served.url).sync() as env:
        assert env.reset(query=json.dumps(train_records[5])).observation["messages"][1]["content"] == \
            train_records[5]["query"]
        assert env.reset(seed=7).observation == env.reset(seed=7).observation
        with pytest.raises(Exception, match="outside"):
            env.reset(index=len(train_records))
    from planshape.adapters.openenv.environment import Tasks, TravelPlannerEnvironment
    from planshape.shaping.facade import shared_shaper

    environment = TravelPlannerEnvironment(Tasks(shared_shaper({"database": "sample"}), train_records[:3]))
    assert environment.list_splits() == ["all"] and environment.num_tasks("all") == 3
    assert environment.get_task("all", 2)["query"] == train_records[2]["query"]
    assert [n for n, _ in environment.rubric.named_rubrics()] == \
        ["schema", "cs_micro", "hard_micro", "cs_macro", "hard_macro", "pass"]


def test_an_openenv_release_other_than_010_is_refused():
    from planshape.adapters.openenv.version import check_version
    from planshape.shaping.facade import UnsupportedRelease

    assert check_version().startswith("0.10.")
    with pytest.raises(UnsupportedRelease, match=r"supports OpenEnv 0\.10\.0 to 0\.10\.x, found openenv 0\.3\.0: "
                                                 r"pip install 'openenv>=0\.10\.0,<0\.11'"):
        check_version("0.3.0")
