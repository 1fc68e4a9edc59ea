"""A scripted model behind the OpenAI Responses API, as NeMo Gym's agents call a model server (``POST
.../v1/responses``): each query's turns are scripted (tool calls, then a final message), found by the user
message's text; the turn is the number of tool-result runs already in the input. Past its script a model keeps
repeating its last turn (a stuck model). Runs in any venv with aiohttp; NeMo Gym names it as an external model
server (host and port, no entrypoint)."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Mapping
from typing import Any

from aiohttp import web

Turn = Mapping[str, Any]  # {"calls": [(name, arguments JSON text), ...]} or {"text": final reply}


def _user_text(items: list[Any]) -> str:
    for item in items:
        if isinstance(item, Mapping) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return ""


def _turn_index(items: list[Any]) -> int:
    runs, inside = 0, False
    for item in items:
        result = isinstance(item, Mapping) and item.get("type") == "function_call_output"
        if result and not inside:
            runs += 1
        inside = result
    return runs


class ScriptedResponses:
    """``with ScriptedResponses(script) as model:`` serves on 127.0.0.1 (``model.port``) in a thread."""

    def __init__(self, script: Mapping[str, list[Turn]], port: int = 0):
        self.script = script
        self.port = port
        self.calls = 0
        self._ids = itertools.count()
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    async def _respond(self, request: web.Request) -> web.Response:
        body = await request.json()
        items = body.get("input") or []
        items = [{"role": "user", "content": items}] if isinstance(items, str) else items
        turns = self.script.get(_user_text(items))
        self.calls += 1
        if not turns:
            return web.json_response({"error": "no script for this query"}, status=400)
        turn = turns[min(_turn_index(items), len(turns) - 1)]
        n = next(self._ids)
        if "calls" in turn:
            output = [{"type": "function_call", "id": f"fc_{n}_{k}", "call_id": f"call_{n}_{k}", "name": name,
                       "arguments": arguments, "status": "completed"}
                      for k, (name, arguments) in enumerate(turn["calls"])]
        else:
            output = [{"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]}]
        return web.json_response({
            "id": f"resp_{n}", "created_at": time.time(), "model": body.get("model") or "scripted",
            "object": "response", "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": body.get("tools") or [], "status": "completed",
            "usage": {"input_tokens": 10, "output_tokens": 10, "total_tokens": 20,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}})

    def _serve(self) -> None:
        async def main() -> None:
            app = web.Application(client_max_size=64 << 20)
            app.router.add_route("POST", "/{tail:.*v1/responses}", self._respond)
            app.router.add_route("GET", "/{tail:.*}", lambda _: web.json_response({"status": "ok"}))
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", self.port)
            await site.start()
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._ready.set()
            await self._stop.wait()
            await runner.cleanup()

        asyncio.run(main())

    def __enter__(self) -> ScriptedResponses:
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        assert self._ready.wait(30), "the scripted model did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


def script_json(script: Mapping[str, list[Turn]]) -> str:
    return json.dumps({k: [dict(t) for t in v] for k, v in script.items()})
