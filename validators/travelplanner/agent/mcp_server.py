"""The seven TravelPlanner tools as an MCP server (the official ``mcp`` SDK), over stdio or streamable HTTP.

The same ``ToolBox`` and ``TOOL_SCHEMAS`` the trainers use, so an MCP-capable agent framework or trainer gets
the sandbox exactly as training saw it without planshape code in it. A tool's ``Error: ...`` answer (bad
arguments, unknown city) is a result with ``is_error`` set, as MCP asks, so the model can read and correct it.
Needs the ``serve`` extra (``pip install 'planshape[serve]'``).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .listening import listen as bind
from .tools import TOOL_SCHEMAS, ToolBox

NAME = "planshape-travelplanner"
HTTP_PATH = "/mcp"


def mcp_tools() -> list[types.Tool]:
    """The tools as MCP declares them: the function schemas' names, descriptions and parameter schemas."""
    return [types.Tool(name=s["function"]["name"], description=s["function"]["description"],
                       input_schema=s["function"]["parameters"]) for s in TOOL_SCHEMAS.values()]


def build_server(tools: ToolBox, version: str = "") -> Server[Any]:
    """An MCP server whose ``tools/call`` is ``tools.call`` (which never raises on what a model sends)."""
    listed = types.ListToolsResult(tools=mcp_tools())

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listed

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = tools.call(params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=text.startswith("Error:"))

    return Server(NAME, version=version, on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_stdio(tools: ToolBox, version: str = "") -> None:
    """Serve on this process's stdin/stdout until the client closes them."""
    asyncio.run(_serve_stdio(build_server(tools, version)))


def listen(host: str = "127.0.0.1", port: int = 8765) -> socket.socket:
    """The listening socket for ``serve_http``, bound before anything says it serves (``listening.listen``)."""
    return bind(host, port, "MCP")


def serve_http(tools: ToolBox, sock: socket.socket, host: str = "127.0.0.1", version: str = "") -> None:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp`` on ``sock`` (from ``listen(host, ...)``) until
    interrupted; ``host`` is the name it was bound by (a loopback name turns on DNS-rebinding protection)."""
    import uvicorn

    app = build_server(tools, version).streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
