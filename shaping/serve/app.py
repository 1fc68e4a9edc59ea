"""The HTTP front of ``planshape serve``: every request goes to ``Service.handle``; the connection is guarded.

A small HTTP/1.1 server over ``httptools``' parser (llhttp, Node's: chunked bodies, pipelining and keep-alive as
HTTP has them), so that reading a request and writing its reply costs the front a few Python calls: the front's
CPU per sample is what bounds how many scoring workers one front feeds (``fronts``). aiohttp's web server spent
about 0.2 ms of Python a request here, as much as a cheap sample's scoring. What it guards, where a client
without a token can reach it:

* **Nothing echoed, nothing logged that could hold the token.** A request the parser cannot read (a NUL byte in
  the request line, a line over ``max_line_bytes``, a malformed header) gets a fixed 400 naming the kind of
  problem, never quoting the request, and the connection is closed; the log gets at most one line per
  ``BadRequestLog.window_s`` counting them (no traceback, no request text). No access log: the service logs a
  route label, never a path, and only when asked (``log_requests``).
* **Timeouts.** A request whose headers do not arrive within ``header_timeout_s`` of its first byte, or whose
  body does not within ``read_timeout_s``, is cut (a slow client holds no connection); a connection idle for
  ``idle_timeout_s`` (before its first request or between requests) is closed.
* **A connection cap before auth.** Past ``max_connections`` open connections a new one gets a bare 503 and is
  closed before a byte of its request is read.
* **A body over the limit** is refused from its Content-Length (``Service``) or as soon as its bytes pass
  ``max_body_bytes`` (a chunked body), and is not kept.

Requests of one connection are answered in order, one at a time; once a request waits behind the one answered,
the connection is read no further until that one is done (a pipelining client holds no more than one read's worth
of requests here); ``Expect: 100-continue`` is answered when the service first reads the body (after its access
check).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import cast
from urllib.parse import parse_qsl, unquote

import httptools
from multidict import CIMultiDict

from .codec import dumps
from .limits import Limits
from .routes import Call, Reply, Service
from .wire import BadRequest

log = logging.getLogger("planshape.serve")
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
MAX_HEADERS = 128
"""Header lines a request may have (aiohttp's clients send under 10; a trainer's, under 20)."""
SHUTDOWN_GRACE_S = 5.0
HOLD_PER_WORKER = 2
"""Jobs waiting per scoring process past which a connection just answered is read no further for now
(``Front.saturated``)."""
LINGER_S = 10.0
"""After a reply sent before its request's body was read whole (a 413, a 401), how long the rest of the body is
read and dropped before the connection closes: a client still sending gets the reply, not a broken pipe."""


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


class _Unreadable(Exception):
    """A request refused while it is parsed: the kind of problem, in words that quote none of it."""


class _Request:
    """One request as it arrives: its line, headers and body, and a future set once the body is whole."""

    __slots__ = ("url", "headers", "method", "keep_alive", "expect", "chunks", "size", "whole", "too_large",
                 "refusal")

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.url = b""
        self.headers: list[tuple[str, str]] = []
        self.method = "GET"
        self.keep_alive = True
        self.expect = False
        self.chunks: list[bytes] = []
        self.size = 0
        self.whole: asyncio.Future[None] = loop.create_future()
        self.too_large = False
        self.refusal: tuple[int, str] | None = None  # a refused request's place in line: its status and kind


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def reply_bytes(reply: Reply, keep_alive: bool, head_only: bool = False) -> bytes:
    """A reply as HTTP/1.1 bytes: status line, headers, body (none for HEAD)."""
    body = reply.body if isinstance(reply.body, bytes) else dumps(reply.body)
    lines = [f"HTTP/1.1 {reply.status} {_reason(reply.status)}", f"Content-Type: {reply.content_type}",
             f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in reply.headers.items()]
    if not keep_alive:
        lines.append("Connection: close")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head if head_only else head + body


def _fixed(status: int, kind: str) -> bytes:
    """The reply to a request the server could not read: the kind of problem, and nothing of the request."""
    error = f"{kind}: the server cannot read this request" if status < 500 else "internal error"
    return reply_bytes(Reply(status, {"error": error}), keep_alive=False)


class Front:
    """What every connection of one front shares: the service, the limits, the bad-request log, the open
    connections (for the cap and for shutdown)."""

    def __init__(self, service: Service, limits: Limits):
        self.service, self.limits = service, limits
        self.bad_requests = BadRequestLog()
        self.connections: set[Connection] = set()
        self.held: set[Connection] = set()

    def saturated(self) -> bool:
        """Enough jobs wait for a worker that a request read now would only wait in line: a connection whose POST
        was just answered is then held (read no further) until the line is short again (``release``). Its next
        request stays in the kernel's buffer meanwhile, rather than waking this process to be put in line, and the
        held connections are read together, in the wake-up that shortened the line: the front wakes about once a
        sample rather than twice (its CPU a request, measured: see docs/serve.md). A connection whose GET was
        answered (a health probe, a Prometheus scrape) is never held: its next request is answered in turn."""
        pool = self.service.pool
        return pool.waiting >= HOLD_PER_WORKER * max(1, pool.size)

    def release(self) -> None:
        """Read the held connections again once the line is short (checked after every reply)."""
        if self.held and not self.saturated():
            held, self.held = self.held, set()
            for conn in held:
                conn.unhold()

    def __call__(self) -> Connection:
        return Connection(self)

    async def shutdown(self, grace_s: float) -> None:
        """Close idle connections now, busy ones once their request is answered (at most ``grace_s``)."""
        deadline = time.monotonic() + grace_s
        for conn in list(self.connections):
            conn.closing_down = True
            if conn.task is None:
                conn.close()
        while any(c.task is not None for c in self.connections) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for conn in list(self.connections):
            conn.close()


class Connection(asyncio.Protocol):
    """One client connection: parses its requests (``httptools`` calls the ``on_*`` methods) and answers them
    in order through the service."""

    def __init__(self, front: Front):
        self.front = front
        self.limits = front.limits
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpRequestParser(self)
        self.peer: str | None = None
        self.current: _Request | None = None  # the request being parsed
        self.queue: deque[_Request] = deque()  # requests whose headers are in, not yet answered
        self.task: asyncio.Task | None = None  # the request being answered
        self.header_timer: asyncio.TimerHandle | None = None
        self.idle_timer: asyncio.TimerHandle | None = None
        self.refused = False  # no more requests are read (a close is under way)
        self.closing_down = False
        self.lingering: _Request | None = None  # answered; the rest of its body is dropped, then the close
        self.paused = False  # reading paused while a request waits behind the one being answered
        self.write_paused = False  # reading paused while the client's unread replies fill the transport
        self.holding = False  # reading paused while the scoring side is saturated (``Front.saturated``)

    # --- the connection -----------------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = tcp = cast(asyncio.Transport, transport)  # uvloop's is not an asyncio.Transport subclass
        peer = tcp.get_extra_info("peername")
        self.peer = str(peer[0]) if isinstance(peer, tuple) and peer else None
        if len(self.front.connections) >= self.limits.max_connections:
            self.refused = True
            tcp.write(BUSY)
            tcp.close()
            self.front.bad_requests.note("over --max-connections", self.peer)
            return
        self.front.connections.add(self)
        self._idle()

    def connection_lost(self, exc: Exception | None) -> None:
        self.front.connections.discard(self)
        self.front.held.discard(self)
        self.refused = True
        for timer in (self.header_timer, self.idle_timer):
            if timer is not None:
                timer.cancel()
        for request in (self.current, *self.queue):
            if request is not None and not request.whole.done():
                request.whole.set_result(None)  # a handler waiting for the body reads what came
        self.transport = None

    def close(self) -> None:
        self.refused = True
        if self.transport is not None:
            self.transport.close()

    def pause_writing(self) -> None:
        """The client reads its replies slower than it sends requests: read no more until it catches up."""
        self.write_paused = True
        if self.transport is not None:
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        self.write_paused = False
        self._resume()

    def _resume(self) -> None:
        """Read again unless something else still pauses the connection."""
        if (not self.paused and not self.write_paused and not self.holding and self.transport is not None
                and not self.transport.is_closing()):
            self.transport.resume_reading()

    def _hold(self) -> None:
        self.holding = True
        self.front.held.add(self)
        if not self.paused and not self.write_paused and self.transport is not None:
            self.transport.pause_reading()

    def unhold(self) -> None:
        """The line is short again: read on, and count idle time from now."""
        self.holding = False
        self._resume()
        if self.task is None and self.current is None and not self.refused:
            self._idle()

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return
        if self.idle_timer is not None:
            self.idle_timer.cancel()
            self.idle_timer = None
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse(400, "a protocol upgrade, which this server does not speak")
        except httptools.HttpParserCallbackError as exc:
            context = exc.__context__
            self._refuse(400, str(context) if isinstance(context, _Unreadable) else "a malformed HTTP request")
        except httptools.HttpParserInvalidMethodError:
            self._refuse(400, "a malformed request line")
        except httptools.HttpParserInvalidURLError:
            self._refuse(400, "a malformed request line")
        except httptools.HttpParserError:
            self._refuse(400, "a malformed HTTP request")

    def _refuse(self, status: int, kind: str) -> None:
        """A fixed reply that quotes nothing of the request, one line in the log at most, and the connection
        closed (after the requests before it are answered)."""
        self.front.bad_requests.note(kind, self.peer)
        self.refused = True
        self._stop_header_timer()
        if self.current is not None and not self.current.whole.done():
            self.current.whole.set_result(None)
        if self.task is None:
            self._write_and_close(_fixed(status, kind))
        else:
            refused = _Request(self.loop)
            refused.refusal = (status, kind)
            self.queue.append(refused)

    def _write_and_close(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)
            self.transport.close()

    def _idle(self) -> None:
        self.idle_timer = self.loop.call_later(self.limits.idle_timeout_s, self._idle_over)

    def _idle_over(self) -> None:
        self.idle_timer = None
        if self.task is None and self.current is None:
            self.close()

    def _header_timeout(self) -> None:
        self.header_timer = None
        self._refuse(408, f"headers not complete within {self.limits.header_timeout_s:g} s")

    def _stop_header_timer(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    # --- httptools' callbacks ---------------------------------------------------------------------------

    def on_message_begin(self) -> None:
        self.current = _Request(self.loop)
        self.header_timer = self.loop.call_later(self.limits.header_timeout_s, self._header_timeout)

    def on_url(self, url: bytes) -> None:
        assert self.current is not None
        self.current.url += url
        if len(self.current.url) > self.limits.max_line_bytes:
            raise _Unreadable("a request line or header longer than the server reads")

    def on_header(self, name: bytes, value: bytes) -> None:
        request = self.current
        assert request is not None
        if len(name) + len(value) > self.limits.max_line_bytes or len(request.headers) >= MAX_HEADERS:
            raise _Unreadable("a request line or header longer than the server reads")
        request.headers.append((name.decode("latin-1"), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        request = self.current
        assert request is not None
        self._stop_header_timer()
        request.method = self.parser.get_method().decode("ascii", "replace")
        request.keep_alive = self.parser.should_keep_alive()
        request.expect = any(k.lower() == "expect" and v.strip().lower() == "100-continue" for k, v in request.headers)
        self.queue.append(request)
        if self.task is not None and not self.paused and self.transport is not None:
            self.transport.pause_reading()  # one request waits at most: a pipelining client is read no further
            self.paused = True
        self._next()

    def on_body(self, body: bytes) -> None:
        request = self.current
        assert request is not None
        request.size += len(body)
        if request.too_large:
            return
        if request.size > self.limits.max_body_bytes:  # a chunked body past the limit: not kept
            request.too_large = True
            request.chunks.clear()
            if not request.whole.done():
                request.whole.set_result(None)
            return
        request.chunks.append(body)

    def on_message_complete(self) -> None:
        request = self.current
        assert request is not None
        self.current = None
        if not request.whole.done():
            request.whole.set_result(None)
        if self.lingering is request:
            self.close()

    # --- answering ---------------------------------------------------------------------------------------

    def _next(self) -> None:
        """Answer the next request in line, if none is being answered."""
        if self.task is None and self.queue:
            self.task = self.loop.create_task(self._answer(self.queue.popleft()))
            if self.paused:
                self.paused = False
                self._resume()  # the request answered now may still need its body

    async def _answer(self, request: _Request) -> None:
        try:
            await self._reply_to(request)
        finally:  # whatever became of the request (its client gone, a refusal), the line may be short now
            self.front.release()

    async def _reply_to(self, request: _Request) -> None:
        if request.refusal is not None:  # written after the replies before it
            self.task = None
            self._write_and_close(_fixed(*request.refusal))
            return
        keep_alive = request.keep_alive and not self.closing_down
        try:
            reply = await self.front.service.handle(self._call(request))
        except _Unreadable as exc:
            self.front.bad_requests.note(str(exc), self.peer)
            reply, keep_alive = Reply(400, {"error": f"{exc}: the server cannot read this request"}), False
        except Exception:  # noqa: BLE001 - Service.handle answers every error itself; this is a last guard
            log.exception("internal error answering a request")
            reply = Reply(500, {"error": "internal error; the server keeps serving"})
        receiving = self.current is request  # answered before its body was read whole
        if receiving or request.too_large:
            keep_alive = False
        self.task = None
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        transport.write(reply_bytes(reply, keep_alive and not self.refused, request.method == "HEAD"))
        if receiving and not self.refused:  # the rest of the body is read and dropped, then the close
            request.too_large = True
            request.chunks.clear()
            self.lingering = request
            self.loop.call_later(LINGER_S, self.close)
            return
        if not keep_alive or (self.refused and not self.queue):
            transport.close()
            return
        if self.queue:
            self._next()
        elif self.current is None:
            if request.method == "POST" and self.front.saturated():  # a trainer's; a probe's GET is never held
                self._hold()
            else:
                self._idle()

    def _call(self, request: _Request) -> Call:
        try:
            url = httptools.parse_url(request.url)
            path = unquote(url.path.decode("latin-1")) if url.path else "/"
            raw_query = url.query.decode("latin-1") if url.query else ""
        except httptools.HttpParserInvalidURLError:
            raise _Unreadable("a malformed request line") from None
        query = dict(reversed(parse_qsl(raw_query, keep_blank_values=True))) if raw_query else {}

        async def read_body(limit: int) -> bytes:
            if not request.whole.done():
                if request.expect and self.transport is not None and not self.transport.is_closing():
                    self.transport.write(CONTINUE)
                    request.expect = False
                try:
                    await asyncio.wait_for(asyncio.shield(request.whole), self.limits.read_timeout_s)
                except asyncio.TimeoutError:
                    self.refused = True
                    raise BadRequest(f"the body did not arrive within {self.limits.read_timeout_s:g} s "
                                     "(--read-timeout)", 408) from None
            if request.too_large or request.size > limit:
                raise _too_large(limit)
            if self.current is request:  # the connection closed before the body was whole
                raise BadRequest("the connection closed before the body arrived")
            return b"".join(request.chunks)

        return Call(request.method, path, query, CIMultiDict(request.headers), self.peer, read_body)


def _too_large(limit: int) -> BadRequest:
    return BadRequest(f"the body is over {limit} bytes; this server takes at most {limit} (--max-body-mb)", 413)


async def serve(build: Callable[[], Awaitable[Service]], sock: socket.socket, limits: Limits,
                ready: Callable[[], None] | None = None) -> None:
    """Serve on ``sock`` (bound already) until SIGINT or SIGTERM, then stop the scoring side. ``build`` makes
    the service inside this loop (its pool starts there); ``ready`` is called once the server answers."""
    loop = asyncio.get_running_loop()
    service = await build()
    front = Front(service, limits)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    listening = await loop.create_server(front, sock=sock)
    try:
        if ready is not None:
            ready()
        await stop.wait()
    finally:
        listening.close()
        await front.shutdown(SHUTDOWN_GRACE_S)
        service.close()


def run(build: Callable[[], Awaitable[Service]], sock: socket.socket, limits: Limits,
        ready: Callable[[], None] | None = None) -> None:
    """Serve on uvloop's event loop where it is installed (``planshape[serve]`` brings it on Linux and macOS:
    its loop costs the front less CPU a request than asyncio's own), else on asyncio's."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(serve(build, sock, limits, ready))
        return
    uvloop.run(serve(build, sock, limits, ready))
