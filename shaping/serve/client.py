"""A client of ``planshape serve`` for trainers whose reward is a Python function (VERL, TRL): each sample is
posted (the per-sample route, with the step), with a timeout per request and retries with backoff.

Start-up (``start``) posts an empty batch: a wrong URL or token fails there, with what to fix, and the reply
names every metric the server logs. After that a sample whose requests all fail (the server restarting, a
timeout) gets a failing score with the reason under the same metric names (``timeout`` or ``error``), so a
training step never dies on the network and every trainer log keeps its keys.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from ..components import ERROR, TIMEOUT
from ..observe.metric_names import FAILURE, metric_name

RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
FIRST_BACKOFF_S, MAX_BACKOFF_S = 0.25, 4.0


class ServerError(ValueError):
    """The server cannot be used as configured (unreachable at start, wrong token, refused requests)."""


@dataclass(frozen=True)
class Scored:
    """One sample's result as the server sent it (or a failing one): what the in-process path gives."""

    reward: float
    success: bool
    failure: str
    reason: str
    metrics: dict[str, float] = field(repr=False)


@dataclass
class RewardClient:
    """``url`` (``http://HOST:PORT``), the token in ``token_file`` (sent as ``Authorization: Bearer``),
    ``timeout_s`` per request and ``retries`` after the first try."""

    url: str
    token_file: str | None = None
    timeout_s: float = 60.0
    retries: int = 3

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ServerError(f"the planshape server url must start with http:// or https://, got {self.url!r}")
        if self.timeout_s <= 0 or self.retries < 0:
            raise ServerError(f"timeout_s must be > 0 and retries >= 0, got {self.timeout_s}, {self.retries}")
        self.url = self.url.rstrip("/")
        token = None
        if self.token_file:
            try:
                token = Path(self.token_file).read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ServerError(f"token_file {self.token_file}: {exc.strerror or exc}") from None
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.metric_names: tuple[str, ...] = ()

    def _new_session(self) -> aiohttp.ClientSession:
        """A session per call (a batch, or one sample): nothing is left open on a trainer's event loop."""
        return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64), headers=self._headers,
                                     timeout=aiohttp.ClientTimeout(total=self.timeout_s))

    async def start(self) -> None:
        """Reach the server once (an empty batch): learn its metric names; a mistake raises ``ServerError``."""
        if not self.metric_names:
            async with self._new_session() as session:
                await self._start(session)

    async def _start(self, session: aiohttp.ClientSession) -> None:
        try:
            async with session.post(self.url + "/get_reward", json={"query": [], "prompts": [], "labels": []}) as reply:
                body = await reply.json(content_type=None)
                status = reply.status
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
            raise ServerError(f"cannot reach the planshape server at {self.url} ({type(exc).__name__}: {exc}); "
                              "start it with planshape serve, or fix the url") from None
        if status != 200 or not isinstance(body, dict) or not isinstance(body.get("extra_logs"), dict):
            said = body.get("error") if isinstance(body, dict) else str(body)[:200]
            raise ServerError(f"the planshape server at {self.url} answered {status}: {said}"
                              + (" (check token_file)" if status in (401, 403) else ""))
        self.metric_names = tuple(body["extra_logs"])

    async def score(self, text: str, label: Any, step: int | None,
                    session: aiohttp.ClientSession | None = None) -> Scored:
        """One sample: the server's score, or after every try a failing one (``timeout`` / ``error``)."""
        if session is None:  # one sample on its own (VERL calls once per trajectory): a session for the call
            async with self._new_session() as session:
                return await self.score(text, label, step, session)
        if not self.metric_names:
            await self._start(session)
        payload = {"prompt": "", "response": text, "label": label, "step": step}
        why, kind = "", ERROR
        for attempt in range(self.retries + 1):
            if attempt:
                await asyncio.sleep(min(FIRST_BACKOFF_S * 2 ** (attempt - 1), MAX_BACKOFF_S) * (0.5 + random.random()))
            try:
                async with session.post(self.url + "/reward", json=payload) as reply:
                    if reply.status == 200:
                        return _scored(await reply.json())
                    said = await reply.text()
                    if reply.status not in RETRY_STATUS:
                        raise ServerError(f"the planshape server refused a sample ({reply.status}): {said[:300]}")
                    why, kind = f"HTTP {reply.status}: {said[:200]}", ERROR
            except asyncio.TimeoutError:
                why, kind = f"no reply within {self.timeout_s:g} s", TIMEOUT
            except aiohttp.ClientError as exc:
                why, kind = f"{type(exc).__name__}: {exc}", ERROR
        return self.failed(kind, f"the planshape server did not score it after {self.retries + 1} tries ({why})")

    async def score_all(self, texts: Sequence[str], labels: Sequence[Any], step: int | None) -> list[Scored]:
        """A batch, every sample in flight at once, over a session of its own (closed when the batch is done)."""
        async with self._new_session() as session:
            if not self.metric_names:
                await self._start(session)
            return list(await asyncio.gather(*(self.score(t, q, step, session)
                                               for t, q in zip(texts, labels, strict=True))))

    def failed(self, kind: str, reason: str) -> Scored:
        """A failing score under the server's metric names: reward 0, counted under ``kind``."""
        metrics = dict.fromkeys(self.metric_names, 0.0)
        if metric_name(FAILURE + kind) in metrics:
            metrics[metric_name(FAILURE + kind)] = 1.0
        return Scored(0.0, False, kind, reason, metrics)


def _scored(body: Any) -> Scored:
    return Scored(float(body["reward"]), bool(body["success"]), str(body["failure"]), str(body["reason"]),
                  {k: float(v) for k, v in body["metrics"].items()})
