"""``planshape mcp``: an MCP client from the official SDK lists the seven tools and calls each, over stdio and
over streamable HTTP, and gets exactly the toolbox's answers (errors included, flagged ``is_error``)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time

import pytest
from planshape.validators.travelplanner.agent.tools import TOOL_SCHEMAS

mcp = pytest.importorskip("mcp", reason="planshape mcp needs the serve extra (mcp)")

CALLS = [
    ("search_flights", {"origin": "Harborview", "destination": "Lindenfield", "date": "2022-03-10"}),
    ("search_accommodations", {"city": "Lindenfield"}),
    ("search_restaurants", {"city": "Lindenfield"}),
    ("search_attractions", {"city": "Lindenfield"}),
    ("search_ground_transportation", {"origin": "Harborview", "destination": "Lindenfield", "mode": "taxi"}),
    ("get_cities", {"state": "Eastvale"}),
    ("calculator", {"expression": "(474 + 346) * 2 + 3 * 95"}),
    ("search_restaurants", {"city": "Atlantis"}),  # an error the model can read
    ("calculator", {"expression": "1 +"}),
]
COMMAND = [sys.executable, "-m", "planshape.shaping.cli", "mcp", "--database", "sample"]


async def exercise(target) -> tuple[list, list]:
    async with mcp.Client(target) as client:
        listed = (await client.list_tools()).tools
        results = [await client.call_tool(name, arguments) for name, arguments in CALLS]
    return listed, results


def check(listed, results, toolbox) -> None:
    assert [t.name for t in listed] == list(TOOL_SCHEMAS)
    for tool in listed:
        function = TOOL_SCHEMAS[tool.name]["function"]
        assert tool.input_schema == function["parameters"] and tool.description == function["description"]
    for (name, arguments), result in zip(CALLS, results, strict=True):
        expected = toolbox.call(name, arguments)
        assert [c.text for c in result.content] == [expected]
        assert result.is_error == expected.startswith("Error:")
    assert sum(r.is_error for r in results) == 2


def test_stdio(toolbox):
    parameters = mcp.StdioServerParameters(command=COMMAND[0], args=COMMAND[1:])
    check(*asyncio.run(exercise(parameters)), toolbox)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http(toolbox):
    port = free_port()
    server = subprocess.Popen([*COMMAND, "--transport", "http", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode()
                assert time.monotonic() < deadline, "the MCP server did not start"
                time.sleep(0.05)
        check(*asyncio.run(exercise(f"http://127.0.0.1:{port}/mcp")), toolbox)
    finally:
        server.terminate()
        server.wait(timeout=10)
