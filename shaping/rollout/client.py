"""The chat-completions client: ``aiohttp`` over keep-alive connections, one session per run.

Per request: a timeout (``request_timeout_s``), and retries with exponential backoff and jitter on 408/409/429,
5xx, timeouts and connection errors, honouring the server's ``Retry-After`` (or ``retry-after-ms``); any other
status fails at once with the server's message. What still fails is ``RequestFailed``, which the agent loop
records on the trajectory. The reply is read from the JSON body defensively: an endpoint's odd JSON is a failed
request, never an exception out of the loop. ``check`` runs once before any trajectory: an endpoint that
cannot serve the run fails the start with what to fix, instead of failing every request.

Why not the ``openai`` package: its typed request path cost about twice this client's CPU per turn when the
rollout first used it (about 1 ms against the 0.4 ms that benchmarks/bench_rollout.py, which drives this client
only, measures here), and at concurrency 32 that alone is most of the 5 ms per-turn budget. The wire format is
the same OpenAI chat-completions protocol every serving engine speaks.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from .settings import RolloutSettings

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
PROBE = [{"role": "user", "content": "Reply with OK."}]  # the start-up request's messages (``ChatClient.check``)
VLLM_TOOLS = "--enable-auto-tool-choice --tool-call-parser hermes"  # what native mode needs of vLLM (Qwen / Hermes)
SGLANG_TOOLS = "--tool-call-parser qwen25"
FIRST_BACKOFF_S, MAX_BACKOFF_S = 0.5, 8.0


class RequestFailed(Exception):
    """A request that failed after every retry (or an unreadable reply); the message says why."""


class EndpointError(ValueError):
    """The endpoint cannot serve this run (unreachable, not the API root, or it rejects the run's requests):
    fix the flags or the server's."""


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: Any
    arguments: Any


@dataclass(frozen=True)
class Reply:
    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0


class _Retry(Exception):
    def __init__(self, why: str, wait_s: float | None = None):
        super().__init__(why)
        self.wait_s = wait_s


class ChatClient:
    """``complete(messages, tools)`` against one endpoint and model; use inside ``async with``."""

    def __init__(self, settings: RolloutSettings):
        self.settings = settings
        self.url = settings.base_url.rstrip("/")
        self._headers = {"Content-Type": "application/json", "Authorization": f"Bearer {settings.api_key}"}
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> ChatClient:
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0), headers=self._headers,
            timeout=aiohttp.ClientTimeout(total=self.settings.request_timeout_s))
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._session is not None:
            await self._session.close()

    async def check(self, tools: list[dict[str, Any]] | None) -> None:
        """Fail at start-up, saying what to fix, when this run's requests cannot succeed: the endpoint is down or
        ``base_url`` is not its API root, it refuses the key, does not serve ``model``, or rejects a request of
        this run's shape. The last is asked with one tiny completion (``PROBE``, a one-token cap) carrying the
        run's fields and ``tools``: a vLLM started without a tool parser rejects ``tools=`` (HTTP 400) on every
        request, which would otherwise fail every trajectory."""
        await self._check_models()
        status, body = await self._probe(tools)
        if status == 200:
            return
        message = _message(body)
        if status in (401, 403):
            raise EndpointError(f"{self.url} refused the API key (HTTP {status}: {message}); set OPENAI_API_KEY")
        if status == 404:
            raise EndpointError(f"{self.url}/chat/completions answered HTTP 404 ({message}): --base-url must be the "
                                "API root (for vLLM and SGLang it ends in /v1) and --model a model it serves")
        if tools and (await self._probe(None))[0] == 200:
            raise EndpointError(f"{self.url} rejects requests with tools (HTTP {status}: {message}): start vLLM with "
                                f"{VLLM_TOOLS} (SGLang: {SGLANG_TOOLS}), or pass --tool-format text")
        raise EndpointError(f"{self.url} rejects this run's requests (HTTP {status}: {message}); check --model, "
                            "--extra-body and --max-tokens")

    async def _check_models(self) -> None:
        """``/models`` lists ``model`` (an endpoint without ``/models`` is left to the completion probe)."""
        try:
            status, body = await self._send("GET", "/models", None)
        except RequestFailed as exc:
            raise EndpointError(f"cannot reach {self.url} ({exc}); is the server up, and does --base-url end in "
                                "/v1?") from None
        if status == 404 and not self.url.endswith("/v1") and await self._serves_models(self.url + "/v1"):
            raise EndpointError(f"{self.url} is not the API root, {self.url}/v1 is: add /v1 (--base-url "
                                f"{self.url}/v1)")
        if status in (401, 403):
            raise EndpointError(f"{self.url} refused the API key (HTTP {status}); set OPENAI_API_KEY")
        data = body.get("data") if status == 200 and isinstance(body, dict) else None
        served = [m.get("id") for m in data if isinstance(m, dict)] if isinstance(data, list) else []
        if served and self.settings.model not in served:
            raise EndpointError(f"{self.url} does not serve --model {self.settings.model!r}; it serves {served}")

    async def _serves_models(self, url: str) -> bool:
        """Whether ``url/models`` answers a model list (one try: this only words an error better)."""
        try:
            status, body = await self._once("GET", url + "/models", None)
        except _Retry:
            return False
        return status == 200 and isinstance(body, dict) and isinstance(body.get("data"), list)

    async def _probe(self, tools: list[dict[str, Any]] | None) -> tuple[int, Any]:
        """``(status, body)`` of the one-token start-up request; a reply that is not a chat completion, or a
        request that fails after its retries, is an ``EndpointError``."""
        body = self._body(PROBE, tools)
        body["max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"] = 1
        try:
            status, reply = await self._send("POST", "/chat/completions", json.dumps(body))
        except RequestFailed as exc:
            raise EndpointError(f"{self.url}/chat/completions failed a one-token request at start-up "
                                f"({exc})") from None
        if status == 200:
            try:
                _reply(reply)
            except RequestFailed as exc:
                raise EndpointError(f"{self.url}/chat/completions did not answer with a chat completion ({exc}); "
                                    "is --base-url an OpenAI-compatible API root?") from None
        return status, reply

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> Reply:
        status, reply = await self._send("POST", "/chat/completions", json.dumps(self._body(messages, tools)))
        if status != 200:
            raise RequestFailed(f"HTTP {status}: {_message(reply)}")
        return _reply(reply)

    def _body(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {**(s.extra_body or {}), "model": s.model, "messages": messages,
                                "temperature": s.temperature}
        if tools:
            body["tools"] = tools
        if s.max_tokens is not None:
            body["max_tokens"] = s.max_tokens
        if s.seed is not None:
            body["seed"] = s.seed
        return body

    async def _send(self, method: str, path: str, data: str | None) -> tuple[int, Any]:
        """``(status, JSON body)``, retrying what may pass; a status not worth retrying is returned."""
        assert self._session is not None, "use ChatClient inside 'async with'"
        tries = self.settings.retries + 1
        for attempt in range(tries):
            try:
                return await self._once(method, self.url + path, data)
            except _Retry as retry:
                if attempt + 1 == tries:
                    raise RequestFailed(f"{retry} (after {tries} tries)") from None
                await asyncio.sleep(retry.wait_s if retry.wait_s is not None else _backoff(attempt))
        raise AssertionError("unreachable")

    async def _once(self, method: str, url: str, data: str | None) -> tuple[int, Any]:
        if self._session is None:
            raise RuntimeError("the client is not open: use it as `async with`")
        try:
            async with self._session.request(method, url, data=data) as response:
                raw = await response.read()
                if response.status in RETRY_STATUS:
                    raise _Retry(f"HTTP {response.status}: {_message(_json(raw))}", _retry_after(response.headers))
                return response.status, _json(raw)
        except asyncio.TimeoutError:
            raise _Retry(f"no reply within {self.settings.request_timeout_s:g} s") from None
        except aiohttp.ClientError as exc:
            raise _Retry(f"{type(exc).__name__}: {str(exc)[:160]}") from None


def _backoff(attempt: int) -> float:
    return min(MAX_BACKOFF_S, FIRST_BACKOFF_S * 2**attempt) * random.uniform(0.75, 1.0)


def _retry_after(headers: Any) -> float | None:
    """The server's wait, when it gives a reasonable one (``retry-after-ms``, or ``Retry-After`` in seconds or
    as an HTTP date)."""
    try:
        if "retry-after-ms" in headers:
            wait = float(headers["retry-after-ms"]) / 1000
        elif "retry-after" in headers:
            text = headers["retry-after"]
            try:
                wait = float(text)
            except ValueError:
                wait = email.utils.parsedate_to_datetime(text).timestamp() - time.time()
        else:
            return None
    except (ValueError, TypeError, OverflowError):
        return None
    return wait if 0 <= wait <= 60 else None


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return raw[:200].decode("utf-8", "replace")


def _message(body: Any) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    text = error.get("message") if isinstance(error, dict) else (error or body)
    return str(text)[:200]


def _reply(response: Any) -> Reply:
    """The first choice's text, tool calls and token counts; a reply without a message is a failed request.
    What the model put in a call (a name or arguments of any type) is passed on as it is: the toolbox answers."""
    try:
        choice = response["choices"][0]
        message = choice["message"]
        calls = [ToolCall(str(c.get("id") or f"call_{i}"), c["function"].get("name"), c["function"].get("arguments"))
                 for i, c in enumerate(message.get("tool_calls") or [])]
        usage = response.get("usage")
        content = message.get("content")
        return Reply(content if isinstance(content, str) else "", calls, str(choice.get("finish_reason") or ""),
                     _count(usage, "prompt_tokens"), _count(usage, "completion_tokens"))
    except (AttributeError, IndexError, TypeError, KeyError) as exc:
        raise RequestFailed(f"unreadable reply ({type(exc).__name__}: {str(exc)[:120]})") from None


def _count(usage: Any, name: str) -> int:
    value = usage.get(name, 0) if isinstance(usage, dict) else 0
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
