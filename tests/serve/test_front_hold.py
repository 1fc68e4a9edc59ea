"""The front holds a connection it just answered while the scoring side is saturated (``Front.saturated``: at least
``HOLD_PER_WORKER`` jobs a worker wait): its next request stays unread until the line is short again, then it is
read and answered like any other; a held connection is not closed as idle, and one the client closed while it was
held is let go once it is read again; a connection whose GET was answered (a health probe, a scrape) is never held.
The scoring side here is a line of jobs the test finishes one at a time, so the line's length at each reply is
known."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import pytest
from planshape.shaping import Shaper
from planshape.shaping.serve.app import HOLD_PER_WORKER, Front
from planshape.shaping.serve.limits import Limits
from planshape.shaping.serve.routes import Service

REPLY = json.dumps({"reward": 1.0}).encode()


class Line:
    """One scoring process: the first job submitted runs, the rest wait; ``finish()`` ends the running one."""

    size, restarts, last_error, pids = 1, 0, "", []

    def __init__(self) -> None:
        self.jobs: list[asyncio.Future] = []
        self.submitted = 0

    @property
    def waiting(self) -> int:
        return max(0, len(self.jobs) - self.size)

    def submit(self, *job: Any) -> asyncio.Future:
        self.submitted += 1
        self.jobs.append(asyncio.get_running_loop().create_future())
        return self.jobs[-1]

    async def run(self, *job: Any) -> Any:
        return await self.submit(*job)

    def finish(self) -> None:
        self.jobs.pop(0).set_result(("reply", ("",), REPLY))

    def close(self) -> None:
        pass


def _request() -> bytes:
    body = b'{"prompt": "p", "response": "r", "label": {}}'
    return b"POST /reward HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


async def _reply(reader: asyncio.StreamReader) -> int:
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    size = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    await reader.readexactly(size)
    return int(head.split()[1])


async def _until(condition: Any) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("never happened")


async def _serving(shaper: Shaper, clients: int, limits: Limits) -> tuple[Line, Front, Any, int, list[Any]]:
    """A front over a line of jobs on a free port, and ``clients`` connections that have each sent one POST:
    (line, front, server, port, [(reader, writer)])."""
    line = Line()
    front = Front(Service(shaper, line, limits=limits), limits)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = await asyncio.get_running_loop().create_server(front, sock=sock)
    port = sock.getsockname()[1]
    connections = [await asyncio.open_connection("127.0.0.1", port) for _ in range(clients)]
    for _, writer in connections:
        writer.write(_request())
    await _until(lambda: line.submitted == clients)
    return line, front, server, port, connections


@pytest.fixture(scope="module")
def shaper() -> Shaper:
    return Shaper.from_mapping({"database": "sample"})


def test_a_connection_answered_while_jobs_wait_is_read_again_once_the_line_is_short(shaper):
    async def main() -> None:
        line, front, server, port, clients = await _serving(shaper, 6, Limits(idle_timeout_s=0.3))
        assert line.waiting == 5 and front.saturated() and HOLD_PER_WORKER == 2  # one runs, five wait: saturated
        line.finish()
        first_reader, first_writer = clients[0]
        assert await _reply(first_reader) == 200
        await _until(lambda: len(front.held) == 1)  # answered while four jobs waited: held
        first_writer.write(_request())  # its next request: not read while the line is long
        probe_reader, probe_writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(2):  # a health probe's GETs are answered in turn, the line long or not: never held
            probe_writer.write(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert await _reply(probe_reader) == 200 and front.saturated() and len(front.held) == 1
        probe_writer.close()
        await asyncio.sleep(0.5)  # longer than the idle timeout: a held connection is not idle
        assert line.submitted == 6 and not first_writer.is_closing()
        line.finish()
        assert await _reply(clients[1][0]) == 200  # three wait: held too
        line.finish()
        assert await _reply(clients[2][0]) == 200  # two wait: held too
        await _until(lambda: len(front.held) == 3)
        clients[2][1].close()  # closed while held: seen once it is read again
        line.finish()  # one waits after it: the line is short, so every held connection is read again
        assert await _reply(clients[3][0]) == 200
        await _until(lambda: line.submitted == 7 and not front.held and len(front.connections) == 5)
        while line.jobs:
            line.finish()
        assert [await _reply(clients[i][0]) for i in (4, 5, 0)] == [200] * 3
        for _, writer in clients:
            writer.close()
        server.close()

    asyncio.run(main())


def test_held_connections_are_read_again_when_the_jobs_ahead_end_with_their_clients_gone(shaper):
    """The line shortens as jobs end, whether or not their replies can be written: a held connection is read
    again when the clients ahead of it have gone away."""
    async def main() -> None:
        line, front, server, _, clients = await _serving(shaper, 5, Limits())
        line.finish()
        reader, writer = clients[0]
        assert await _reply(reader) == 200
        await _until(lambda: front.held)
        writer.write(_request())
        for _, gone in clients[1:]:
            gone.close()
        await _until(lambda: len(front.connections) == 1)
        while line.jobs:  # four replies that cannot be written
            line.finish()
        await _until(lambda: line.submitted == 6)
        line.finish()
        assert await _reply(reader) == 200
        writer.close()
        server.close()

    asyncio.run(main())
