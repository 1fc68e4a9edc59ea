"""A scripted OpenAI-compatible chat-completions server on the loopback interface (real HTTP: ``aiohttp.web``
on its own event loop in a background thread).

``script(request, attempt)`` decides each reply from the request body and how often this same request (same
conversation so far) was seen: a reply ``{"content": ..., "tool_calls": [(name, arguments_text), ...]}``, an
error ``{"status": 500}`` / ``{"status": 429}``, ``{"hang": seconds}`` (sleep, then answer the retry), or
``{"raw": text}`` (a body that is not JSON). The rollout's start-up request (``client.PROBE``) is answered
"OK" without the script and counted in ``probes``, not ``completions``. ``tool_parser=False`` acts as a vLLM
started without ``--enable-auto-tool-choice --tool-call-parser``: a request with ``tools`` gets its HTTP 400.
A request with ``"stream": true`` is answered as a server-sent event stream (one delta chunk, a finish chunk
with the usage, ``[DONE]``), as verifiers' interception server asks for it. ``latency`` is added to every
completion (an ``asyncio.sleep``:
the requests in flight wait side by side, as on a serving engine), varied by up to ``jitter`` of itself. The
server measures its own time per completion (handler entered to reply built), which ``bench_rollout``
compares with what the client sees.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web
from planshape.shaping.rollout.client import PROBE

Script = Callable[[dict[str, Any], int], dict[str, Any]]
NO_TOOL_PARSER = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'  # vLLM's


def conversation_key(request: dict[str, Any]) -> str:
    return hashlib.sha1(json.dumps(request.get("messages", [])).encode()).hexdigest()


class ScriptedServer:
    def __init__(self, script: Script, model: str = "scripted", latency: float = 0.0, jitter: float = 0.0,
                 tool_parser: bool = True):
        self.script, self.model, self.latency, self.jitter = script, model, latency, jitter
        self.tool_parser = tool_parser
        self.probes = 0
        self._random = random.Random(0)
        self.attempts: Counter[str] = Counter()
        self.completions = 0
        self.server_seconds = 0.0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=30)
        return self

    def __exit__(self, *exc: Any) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)

    async def _start(self) -> None:
        await self._start_on(0)

    async def _start_on(self, port: int) -> None:
        app = web.Application(client_max_size=64 << 20)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/stats", self._stats)
        app.router.add_post("/v1/chat/completions", self._complete)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [
            {"id": self.model, "object": "model", "created": 0, "owned_by": "test"}]})

    async def _stats(self, request: web.Request) -> web.Response:  # what bench_rollout compares the client with
        return web.json_response({"completions": self.completions, "server_seconds": self.server_seconds})

    async def _complete(self, request: web.Request) -> web.Response:
        start = time.perf_counter()
        body = json.loads(await request.read())
        if body.get("tools") and not self.tool_parser:
            return web.json_response({"error": {"message": NO_TOOL_PARSER, "type": "BadRequestError", "code": 400}},
                                     status=400)
        if body.get("messages") == PROBE:
            self.probes += 1
            return web.json_response({"id": "chatcmpl-probe", "object": "chat.completion", "model": self.model,
                                      "choices": [{"index": 0, "message": {"role": "assistant", "content": "OK"},
                                                   "finish_reason": "length"}]})
        key = conversation_key(body)
        attempt = self.attempts[key]
        self.attempts[key] += 1
        action = self.script(body, attempt)
        if "hang" in action:
            await asyncio.sleep(action["hang"])
            return web.json_response({})
        if "status" in action:
            error = {"error": {"message": f"scripted {action['status']}", "type": "server_error"}}
            return web.json_response(error, status=action["status"], headers={"retry-after-ms": "5"})
        if "raw" in action:
            return web.Response(text=action["raw"], content_type="application/json")
        if self.latency:  # jitter: latency x uniform(1 - j, 1 + j), seeded
            await asyncio.sleep(self.latency * (1 + self.jitter * (2 * self._random.random() - 1)))
        calls = [{"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
                 for i, (name, arguments) in enumerate(action.get("tool_calls", []))]
        message: dict[str, Any] = {"role": "assistant", "content": action.get("content")}
        if calls:
            message["tool_calls"] = calls
        tokens = action.get("completion_tokens", 10)
        if body.get("stream"):
            return await self._stream(request, message, calls, tokens, start)
        reply = web.json_response({
            "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": tokens, "total_tokens": 100 + tokens}})
        self.completions += 1
        self.server_seconds += time.perf_counter() - start
        return reply


    async def _stream(self, request: web.Request, message: dict[str, Any], calls: list[dict[str, Any]], tokens: int,
                      start: float) -> web.StreamResponse:
        head = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": self.model}
        delta: dict[str, Any] = {"role": "assistant", "content": message["content"]}
        if calls:
            delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(calls)]
        events = [{**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if calls else "stop"}],
                   "usage": {"prompt_tokens": 100, "completion_tokens": tokens, "total_tokens": 100 + tokens}}]
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in events:
            await response.write(f"data: {json.dumps(event)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        self.completions += 1
        self.server_seconds += time.perf_counter() - start
        return response


def _demo(port: int) -> None:
    """A stand-in for a served model (docs/rollout.md): one ``get_cities`` call, then the sample world's plan for
    the query (the plan file's line of the same query text; the first such line)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from planshape.validators.travelplanner.sample import sample_plans, sample_queries

    from tests.rollout.scripted_model import answer

    plans: dict[str, str] = {}
    for query, plan in zip(sample_queries().read_text().splitlines(), sample_plans().read_text().splitlines(),
                           strict=True):
        text, days = json.loads(query)["query"], json.loads(plan)["plan"]
        plans.setdefault(text, answer(days) if days else "I could not find a plan.")

    def script(request: dict[str, Any], attempt: int) -> dict[str, Any]:
        user = next(m["content"] for m in request["messages"] if m["role"] == "user")
        if not any(m["role"] == "assistant" for m in request["messages"]):
            return {"tool_calls": [("get_cities", '{"state": "Eastvale"}')]}
        return {"content": plans.get(user, "I could not find a plan.")}

    server = ScriptedServer(script)
    server._thread.start()
    asyncio.run_coroutine_threadsafe(server._start_on(port), server._loop).result(timeout=30)
    print(f"scripted model 'scripted' at {server.base_url}", flush=True)
    server._thread.join()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="a scripted OpenAI-compatible server answering the sample world")
    parser.add_argument("--port", type=int, default=8011)
    _demo(parser.parse_args().port)
