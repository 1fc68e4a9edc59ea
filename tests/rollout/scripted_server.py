"""A scripted OpenAI-compatible chat-completions server on the loopback interface (real HTTP, stdlib only).

``script(request, attempt)`` decides each reply from the request body and how often this same request (same
conversation so far) was seen: a reply ``{"content": ..., "tool_calls": [(name, arguments_text), ...]}``, an
error ``{"status": 500}`` / ``{"status": 429}``, ``{"hang": seconds}`` (sleep, then answer the retry), or
``{"raw": text}`` (a body that is not JSON). ``latency`` is added to every completion; the server measures its
own time per completion, which ``bench_rollout`` compares with what the client sees.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any], int], dict[str, Any]]


def conversation_key(request: dict[str, Any]) -> str:
    return json.dumps(request.get("messages", []), sort_keys=True)[-2000:] + str(len(request.get("messages", [])))


class ScriptedServer:
    def __init__(self, script: Script, model: str = "scripted", latency: float = 0.0):
        self.script, self.model, self.latency = script, model, latency
        self.attempts: Counter[str] = Counter()
        self.completions = 0
        self.server_seconds = 0.0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def reply(self, request: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        key = conversation_key(request)
        with self._lock:
            attempt = self.attempts[key]
            self.attempts[key] += 1
        action = self.script(request, attempt)
        if "hang" in action:
            time.sleep(action["hang"])
            return 200, {}, b"{}"
        if "status" in action:
            body = {"error": {"message": f"scripted {action['status']}", "type": "server_error"}}
            return action["status"], {"retry-after-ms": "5"}, json.dumps(body).encode()
        if "raw" in action:
            return 200, {}, action["raw"].encode()
        if self.latency:
            time.sleep(self.latency)
        calls = [{"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
                 for i, (name, arguments) in enumerate(action.get("tool_calls", []))]
        message: dict[str, Any] = {"role": "assistant", "content": action.get("content")}
        if calls:
            message["tool_calls"] = calls
        body = {"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": self.model,
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": action.get("completion_tokens", 10),
                          "total_tokens": 100 + action.get("completion_tokens", 10)}}
        return 200, {}, json.dumps(body).encode()


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a serving engine does

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up on a hung request
                pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {}, json.dumps({"object": "list", "data": [
                    {"id": server.model, "object": "model", "created": 0, "owned_by": "test"}]}).encode())
            else:
                self._send(404, {}, b'{"error": {"message": "not found"}}')

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            start = time.perf_counter()
            if not self.path.endswith("/chat/completions"):
                self._send(404, {}, b'{"error": {"message": "not found"}}')
                return
            status, headers, payload = server.reply(json.loads(body))
            self._send(status, headers, payload)
            with server._lock:
                server.completions += 1
                server.server_seconds += time.perf_counter() - start

    return Handler
