"""The chat-completions client: the ``openai`` package's async client, one per run.

Timeouts and retries are the library's own (exponential backoff with jitter on 429, 5xx, timeouts and
connection errors, honouring ``Retry-After``); what still fails after them is ``RequestFailed``, which the agent
loop records on the query. The reply is read defensively: an endpoint's odd JSON is a failed request, never
an exception out of the loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import openai

from .settings import RolloutSettings


class RequestFailed(Exception):
    """A request that failed after every retry (or an unreadable reply); the message says why."""


class EndpointError(ValueError):
    """The endpoint cannot serve this run (unreachable, or it does not serve the model): fix the flags."""


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


class ChatClient:
    """``complete(messages, tools)`` against one endpoint and model."""

    def __init__(self, settings: RolloutSettings):
        self.settings = settings
        self._client = openai.AsyncOpenAI(base_url=settings.base_url, api_key=settings.api_key,
                                          timeout=settings.request_timeout_s, max_retries=settings.retries)

    async def check(self) -> None:
        """Fail at start-up when the endpoint is down or does not serve ``model`` (its /models lists it)."""
        try:
            listed = await self._client.models.list()
        except openai.NotFoundError:
            return  # an endpoint without /models: the first request will tell
        except openai.APIError as exc:
            raise EndpointError(f"cannot reach {self.settings.base_url} ({_why(exc)}); is the server up, and does "
                                "--base-url end in /v1?") from None
        served = [getattr(m, "id", "") for m in getattr(listed, "data", []) or []]
        if served and self.settings.model not in served:
            raise EndpointError(f"{self.settings.base_url} does not serve --model {self.settings.model!r}; it "
                                f"serves {served}")

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> Reply:
        s = self.settings
        extra: dict[str, Any] = {}
        if tools:
            extra["tools"] = tools
        if s.max_tokens is not None:
            extra["max_tokens"] = s.max_tokens
        if s.seed is not None:
            extra["seed"] = s.seed
        try:
            response = await self._client.chat.completions.create(model=s.model, messages=messages,
                                                                  temperature=s.temperature, **extra)
        except openai.APIError as exc:
            raise RequestFailed(_why(exc)) from None
        except Exception as exc:  # noqa: BLE001 - e.g. a body that is not JSON: this request failed, not the run
            raise RequestFailed(f"unreadable reply ({type(exc).__name__}: {str(exc)[:120]})") from None
        return _reply(response)

    async def close(self) -> None:
        await self._client.close()


def _why(exc: openai.APIError) -> str:
    status = getattr(exc, "status_code", None)
    head = f"HTTP {status}" if status else type(exc).__name__
    return f"{head}: {str(getattr(exc, 'message', exc))[:200]}"


def _reply(response: Any) -> Reply:
    """The first choice's text, tool calls and token counts; a reply without them is a failed request."""
    try:
        choice = response.choices[0]
        message = choice.message
        calls = [ToolCall(str(getattr(c, "id", "") or f"call_{i}"), c.function.name, c.function.arguments)
                 for i, c in enumerate(message.tool_calls or [])]
        usage = getattr(response, "usage", None)
        return Reply(message.content if isinstance(message.content, str) else "", calls,
                     str(choice.finish_reason or ""), _count(usage, "prompt_tokens"),
                     _count(usage, "completion_tokens"))
    except (AttributeError, IndexError, TypeError, KeyError) as exc:
        raise RequestFailed(f"unreadable reply ({type(exc).__name__}: {str(exc)[:120]})") from None


def _count(usage: Any, name: str) -> int:
    value = getattr(usage, name, 0) if usage is not None else 0
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
