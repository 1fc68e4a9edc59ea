"""The aiohttp front of ``planshape serve``: every request goes to ``Service.handle``; the connection is guarded.

aiohttp's low-level server, with its protocol hardened where a client without a token can reach it:

* **Nothing echoed, nothing logged that could hold the token.** aiohttp answers a request it cannot parse (a NUL
  byte in the request line, a URL or header over ``max_line_size``) with a 400 that quotes the offending line, and
  logs it at ERROR with a traceback; a line such as ``POST /t/TOKEN/...`` would put the token in both. Here such a
  request gets a fixed reply naming the kind of problem, and the log gets at most one line per
  ``BadRequestLog.window_s`` counting them (no traceback, no request text). aiohttp's access log is off (it
  writes the URL); the service logs a route label, never a path, and only when asked (``log_requests``).
* **Timeouts.** A request whose headers do not arrive within ``header_timeout_s`` of its first byte, or whose
  body does not within ``read_timeout_s``, is cut (a slow client holds no connection); a connection idle for
  ``idle_timeout_s`` between requests is closed.
* **A connection cap before auth.** Past ``max_connections`` open connections a new one gets a bare 503 and is
  closed before a byte of its request is read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import http_exceptions, web, web_protocol, web_request, web_server

from .codec import dumps
from .limits import Limits
from .routes import Call, Reply, Service
from .wire import BadRequest

log = logging.getLogger("planshape.serve")
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class BadRequestLog:
    """At most one log line per ``window_s`` about requests the server could not read or refused: the first at
    once, then a count of the rest; never the request's text (it can hold the token) and never a traceback."""

    def __init__(self, window_s: float = 60.0):
        self.window_s = window_s
        self._last = -window_s
        self._suppressed = 0

    def note(self, kind: str, peer: str | None) -> None:
        now = time.monotonic()
        if now - self._last < self.window_s:
            self._suppressed += 1
            return
        more = f"; {self._suppressed} more in the last {self.window_s:g} s" if self._suppressed else ""
        log.warning("refused a malformed HTTP request from %s (%s)%s", peer or "an unknown peer", kind, more)
        self._last, self._suppressed = now, 0


def _kind(exc: BaseException | None) -> str:
    """What was wrong with an unreadable request, in words that quote none of it."""
    if isinstance(exc, http_exceptions.LineTooLong):
        return "a request line or header longer than the server reads"
    if isinstance(exc, (http_exceptions.BadStatusLine, http_exceptions.BadHttpMethod)):
        return "a malformed request line"
    if isinstance(exc, http_exceptions.InvalidHeader):
        return "a malformed header"
    if isinstance(exc, http_exceptions.HttpProcessingError):
        return "a malformed HTTP request"
    return "a request the server could not handle"


class GuardedProtocol(web_protocol.RequestHandler):
    """aiohttp's connection protocol with the guards of the module docstring (see ``Limits``)."""

    limits: Limits
    bad_requests: BadRequestLog
    open_connections = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        cls = type(self)
        if cls.open_connections >= self.limits.max_connections:
            self._refused = True
            transport.write(BUSY)  # type: ignore[attr-defined]  # a TCP transport
            transport.close()
            self.bad_requests.note("over --max-connections", _peer(transport))
            return
        self._refused = False
        self._header_timer: asyncio.TimerHandle | None = None
        cls.open_connections += 1
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if getattr(self, "_refused", True):
            return
        type(self).open_connections -= 1
        self._stop_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and not self._request_in_progress and not self._messages:
            self._header_timer = self._loop.call_later(self.limits.header_timeout_s, self._too_slow)
        super().data_received(data)
        if self._messages or self._request_in_progress:
            self._stop_header_timer()

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self._messages and not self._request_in_progress:
            self.bad_requests.note(f"headers not complete within {self.limits.header_timeout_s:g} s",
                                   _peer(self.transport))
            self.force_close()
            if self.transport is not None:
                self.transport.close()

    def handle_error(self, request: web_request.BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        kind = _kind(exc)
        self.bad_requests.note(kind, request.remote)
        if request.writer.output_size > 0:
            raise ConnectionError("a reply was already under way")
        text = json.dumps({"error": f"{kind}: the server cannot read this request"} if status < 500 else
                          {"error": "internal error; the server keeps serving"})
        reply = web.Response(status=status, text=text, content_type="application/json")
        reply.force_close()
        return reply

    def log_exception(self, *args: Any, **kw: Any) -> None:
        exc = kw.get("exc_info")
        self.bad_requests.note(_kind(exc if isinstance(exc, BaseException) else None), _peer(self.transport))

    def log_debug(self, *args: Any, **kw: Any) -> None:
        pass  # aiohttp's debug lines can quote the request; nothing of them is needed


def _peer(transport: Any) -> str | None:
    try:
        peer = transport.get_extra_info("peername") if transport is not None else None
    except Exception:  # noqa: BLE001 - a closed transport
        return None
    return str(peer[0]) if isinstance(peer, tuple) and peer else None


class _Server(web_server.Server):
    """aiohttp's low-level server, making ``GuardedProtocol`` connections."""

    def __init__(self, handler: Any, protocol: type[GuardedProtocol], **kwargs: Any):
        super().__init__(handler, **kwargs)
        self._protocol = protocol

    def __call__(self) -> web_protocol.RequestHandler:
        return self._protocol(self, loop=self._loop, **self._kwargs)


def make_handler(service: Service, limits: Limits) -> Callable[[web_request.BaseRequest], Awaitable[web.Response]]:
    async def handle(request: web_request.BaseRequest) -> web.Response:
        async def read_all(limit: int) -> bytes:
            chunks, size = [], 0
            async for chunk in request.content.iter_chunked(1 << 16):
                size += len(chunk)
                if size > limit:  # a body sent without Content-Length (chunked) stops here
                    raise _too_large(limit)
                chunks.append(chunk)
            return b"".join(chunks)

        async def read_body(limit: int) -> bytes:
            content = request.content
            if content.is_eof():  # the whole body came with the headers (a trainer's request, as a rule): no wait
                body = content.read_nowait()
                if len(body) > limit:
                    raise _too_large(limit)
                return body
            try:
                return await asyncio.wait_for(read_all(limit), limits.read_timeout_s)
            except asyncio.TimeoutError:
                request.protocol.force_close()
                raise BadRequest(f"the body did not arrive within {limits.read_timeout_s:g} s (--read-timeout)",
                                 408) from None

        call = Call(request.method, request.path, request.query, request.headers, request.remote, read_body)
        return to_response(await service.handle(call))

    return handle


def _too_large(limit: int) -> BadRequest:
    return BadRequest(f"the body is over {limit} bytes; this server takes at most {limit} (--max-body-mb)", 413)


def to_response(reply: Reply) -> web.Response:
    body = reply.body if isinstance(reply.body, bytes) else dumps(reply.body)
    return web.Response(status=reply.status, body=body, headers={"Content-Type": reply.content_type, **reply.headers})


def protocol_class(limits: Limits) -> type[GuardedProtocol]:
    """A protocol class of its own per server (the open-connection count is per server)."""
    return type("Guarded", (GuardedProtocol,), {"limits": limits, "bad_requests": BadRequestLog(),
                                                "open_connections": 0})


async def serve(build: Callable[[], Awaitable[Service]], sock: socket.socket, limits: Limits,
                ready: Callable[[], None] | None = None) -> None:
    """Serve on ``sock`` (bound already) until SIGINT or SIGTERM, then stop the scoring side. ``build`` makes
    the service inside this loop (its pool starts there); ``ready`` is called once the server answers."""
    loop = asyncio.get_running_loop()
    service = await build()
    server = _Server(make_handler(service, limits), protocol_class(limits), keepalive_timeout=limits.idle_timeout_s,
                     max_line_size=limits.max_line_bytes, max_field_size=limits.max_line_bytes, access_log=None)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    listening = await loop.create_server(server, sock=sock)
    try:
        if ready is not None:
            ready()
        await stop.wait()
    finally:
        listening.close()
        await server.shutdown(5.0)
        service.close()


def run(build: Callable[[], Awaitable[Service]], sock: socket.socket, limits: Limits,
        ready: Callable[[], None] | None = None) -> None:
    asyncio.run(serve(build, sock, limits, ready))
