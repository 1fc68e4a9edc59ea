"""The bad-call checks (tests/environments/bad_calls.py) through OpenEnv's own clients: ``GenericEnvClient`` over
the session protocol and ``MCPToolClient``. A ``CallToolAction``'s arguments are an object (OpenEnv validates the
action), so arguments that are not JSON or not an object cannot be sent as a call here."""

from __future__ import annotations

from openenv import GenericEnvClient
from openenv.core import MCPToolClient

from ...environments.bad_calls import (
    ANSWER,
    CAP,
    STUCK,
    arguments_object,
    check_answers,
    check_counted,
    check_stuck,
    sent,
)
from .test_server import NAME, call, text_of

UNSENT = {"non-JSON arguments", "arguments not an object"}


def test_over_the_session_protocol(served, shaper):
    with GenericEnvClient(base_url=served.url).sync() as env:
        env.reset(index=0)
        read = []
        for _, name, arguments in sent(UNSENT):
            result = env.step(call(name, arguments_object(arguments)))
            assert not result.done
            read.append(text_of(result.observation))
        check_answers(read, shaper.tools(), unsent=UNSENT)
        final = env.step({"type": "answer", "text": ANSWER})
        assert final.done and final.observation["metadata"][NAME]["failure"] == "no_answer"
        check_counted(env.state()["turns"], UNSENT)


def test_over_mcp(served, shaper):
    """What an agent hands its model: the result's text content (``call_tool``'s convenience value for a tool the
    server does not list is FastMCP's client's reading of the structured result, ``{"result": text}``)."""
    from openenv.core.env_server.mcp_types import CallToolAction

    with MCPToolClient(base_url=served.url).sync() as env:
        env.reset(index=0)
        read = []
        for _, name, arguments in sent(UNSENT):
            result = env.step(CallToolAction(tool_name=name, arguments=arguments_object(arguments))).observation.result
            content = result.content if hasattr(result, "content") else result["content"]
            read.append("".join(part.text if hasattr(part, "text") else part["text"] for part in content))
    check_answers(read, shaper.tools(), unsent=UNSENT)


def test_a_stuck_model(shared_dir, settings, shaper):
    from planshape.adapters.openenv.server import build_app

    from .conftest import Served

    served = Served(build_app(settings, [str(shared_dir / "train.csv")], max_turns=CAP))
    try:
        with GenericEnvClient(base_url=served.url).sync() as env:
            env.reset(index=0)
            for _ in range(CAP + 2):  # more than the cap allows: the episode must end on its own
                result = env.step(call(STUCK[1], arguments_object(STUCK[2])))
                if result.done:
                    break
            assert result.done
            score = result.observation["metadata"][NAME]
            check_stuck(score["failure"], score["reason"], env.state()["turns"])
    finally:
        served.close()
