"""``planshape mcp``: an MCP client from the official SDK lists the seven tools and calls each, over stdio and
over streamable HTTP, and gets exactly the toolbox's answers (errors included, flagged ``is_error``)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

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
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()  # said once the port is bound: connections queue from then on
        assert f"serving at http://127.0.0.1:{port}/mcp" in line, line + server.stderr.read()
        check(*asyncio.run(exercise(f"http://127.0.0.1:{port}/mcp")), toolbox)
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_busy_port_is_a_clear_error_before_anything_says_it_serves():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([*COMMAND, "--transport", "http", "--port", str(port)], capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 2
    assert f"127.0.0.1:{port}/mcp" not in done.stdout + done.stderr  # no "serving at" line for a server not serving
    assert (f"planshape mcp: error: cannot serve MCP on 127.0.0.1:{port} (Address already in use); the port is in "
            "use: pick another --port") in done.stderr
