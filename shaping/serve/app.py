"""The aiohttp app of ``planshape serve``: every path goes to ``Service.handle``.

aiohttp's access log is off (it would write the URL, and the URL can hold the token); the service logs the route,
status and time of each request instead.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable

from aiohttp import web

from .limits import MB
from .routes import Call, Reply, Service
from .wire import BadRequest

SERVICE = web.AppKey("service", Service)


def make_app(service: Service) -> web.Application:
    # aiohttp's own body cap sits above the service's, which answers with its JSON 413 first
    app = web.Application(client_max_size=service.limits.max_body_bytes + MB)
    app[SERVICE] = service
    app.router.add_route("*", "/{tail:.*}", _handle)
    return app


async def _handle(request: web.Request) -> web.Response:
    async def read_body(limit: int) -> bytes:
        chunks, size = [], 0
        async for chunk in request.content.iter_chunked(1 << 16):
            size += len(chunk)
            if size > limit:  # a body sent without Content-Length (chunked) stops here
                raise BadRequest(f"the body is over {limit} bytes; this server takes at most {limit} "
                                 "(--max-body-mb)", 413)
            chunks.append(chunk)
        return b"".join(chunks)

    call = Call(request.method, request.path, request.query, request.headers, request.remote, read_body)
    return to_response(await request.app[SERVICE].handle(call))


def to_response(reply: Reply) -> web.Response:
    if isinstance(reply.body, bytes):
        return web.Response(status=reply.status, body=reply.body, headers={"Content-Type": reply.content_type})
    return web.Response(status=reply.status, text=json.dumps(reply.body), content_type="application/json")


def run(service: Service, sock: socket.socket, ready: Callable[[], None]) -> None:
    """Serve on ``sock`` (bound already) until interrupted, then stop the scoring side; ``ready`` is called once
    the server answers."""
    app = make_app(service)

    async def stop(_: web.Application) -> None:
        service.close()

    app.on_cleanup.append(stop)
    web.run_app(app, sock=sock, access_log=None, print=lambda *_: ready())
