"""The front's HTTP/1.1 as clients speak it, on raw sockets: keep-alive, pipelined requests answered in order,
``Expect: 100-continue`` (curl sends it for a body over 1 KiB) answered only after the access check, a chunked
body, HTTP/1.0 (closed after the reply), HEAD (no body), the query string and a percent-encoded path, and a reply
sent before a body was read whole (its rest read and dropped: the client gets the reply, not a broken pipe), and
a client that sends faster than it reads (paused, every reply delivered)."""

from __future__ import annotations

import json
import socket
import threading

from tests.serve.server import Server, get


def _read_reply(conn: socket.socket, buffer: bytearray, head_only: bool = False) -> tuple[int, dict, bytes]:
    """One reply from ``conn`` (``buffer`` keeps what came after it): (status, headers, body)."""
    while b"\r\n\r\n" not in buffer:
        chunk = conn.recv(65536)
        assert chunk, f"closed before a reply: {bytes(buffer)!r}"
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    size = 0 if head_only else int(headers.get("content-length", "0"))
    while len(rest) < size:
        chunk = conn.recv(65536)
        assert chunk, "closed inside a body"
        rest += chunk
    buffer[:] = rest[size:]
    return status, headers, rest[:size]


def _connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=30)


def _slime(gold, i: int) -> bytes:
    return json.dumps({"prompt": "p", "response": gold.answers[i], "label": gold.labels[i]}).encode()


def _post(path: str, body: bytes, *extra: str, version: str = "1.1") -> bytes:
    lines = [f"POST {path} HTTP/{version}", "Host: x", "Content-Type: application/json",
             f"Content-Length: {len(body)}", *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def test_keep_alive_and_pipelined_requests_are_answered_in_order(server, gold, shaper):
    with _connect(server) as conn:
        buffer = bytearray()
        conn.sendall(b"".join(_post("/reward", _slime(gold, i)) for i in range(3)) + b"GET /health HTTP/1.1\r\n"
                     b"Host: x\r\n\r\n")
        for i in range(3):
            status, headers, body = _read_reply(conn, buffer)
            assert status == 200 and "connection" not in headers
            assert json.loads(body)["reward"] == shaper.score(gold.answers[i], gold.labels[i], 0).reward
        assert _read_reply(conn, buffer)[0] == 200
        conn.sendall(_post("/reward", _slime(gold, 3)))  # the same connection, again
        assert _read_reply(conn, buffer)[0] == 200
        many = list(range(45)) * 2  # more than the front reads ahead: it pauses and resumes the connection
        conn.sendall(b"".join(_post("/reward", _slime(gold, i)) for i in many))
        rewards = [json.loads(_read_reply(conn, buffer)[2])["reward"] for _ in many]
        assert rewards == [shaper.score(gold.answers[i], gold.labels[i], 0).reward for i in many]


def test_expect_100_continue_is_answered_when_the_body_is_wanted(server, gold):
    body = _slime(gold, 0)
    with _connect(server) as conn:
        buffer = bytearray()
        conn.sendall(_post("/reward", body, "Expect: 100-continue")[: -len(body)])  # the headers alone
        assert _read_reply(conn, buffer, head_only=True)[0] == 100
        conn.sendall(body)
        status, _, reply = _read_reply(conn, buffer)
        assert status == 200 and json.loads(reply)["success"] is True
    with _connect(server) as conn:  # an unknown route: refused before the body is asked for
        conn.sendall(b"POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
        status, headers, _ = _read_reply(conn, bytearray())
        assert status == 404 and headers.get("connection") == "close"


def test_a_chunked_body_http_1_0_head_and_the_query_string(server, gold):
    body = _slime(gold, 1)
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:100], body[100:])) + b"0\r\n\r\n"
    with _connect(server) as conn:
        conn.sendall(b"POST /reward HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked)
        status, _, reply = _read_reply(conn, bytearray())
        assert status == 200 and json.loads(reply)["success"] is True
    with _connect(server) as conn:  # HTTP/1.0: answered, then closed
        conn.sendall(_post("/reward", body, version="1.0"))
        buffer = bytearray()
        status, headers, _ = _read_reply(conn, buffer)
        assert status == 200 and headers.get("connection") == "close" and conn.recv(10) == b""
    with _connect(server) as conn:  # HEAD: the headers alone
        conn.sendall(b"HEAD /health HTTP/1.1\r\nHost: x\r\n\r\nGET /h%65alth?x=1&x=2 HTTP/1.1\r\nHost: x\r\n\r\n")
        buffer = bytearray()
        status, headers, _ = _read_reply(conn, buffer, head_only=True)
        assert int(headers["content-length"]) > 0
        status, _, reply = _read_reply(conn, buffer)  # %65 is "e": the path is read decoded
        assert status == 200 and json.loads(reply)["status"] == "ok"


def test_a_reply_before_the_body_is_read_whole_reaches_a_client_still_sending(server):
    """A 404 for an unknown route is written while a 1.5 MB body is still coming: the rest is read and dropped,
    so the client finishes sending and reads the reply (no broken pipe)."""
    body = b" " * (3 * 2**19)
    with _connect(server) as conn:
        conn.sendall(b"POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body))
        conn.sendall(body)
        status, headers, _ = _read_reply(conn, bytearray())
        assert status == 404 and headers.get("connection") == "close"
    assert get(server.url + "/health")[0] == 200


def test_a_client_that_sends_faster_than_it_reads_is_paused_and_every_reply_arrives(server):
    """3,000 pipelined requests written before a byte is read: the replies fill the transport, the front stops
    reading the client until it catches up, and every reply arrives, in order."""
    count = 3000
    with _connect(server) as conn:
        sender = threading.Thread(target=conn.sendall,
                                  args=(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n" * count,), daemon=True)
        sender.start()
        sender.join(1.0)  # the server pauses reading: the send may not finish until replies are read
        buffer = bytearray()
        statuses = [_read_reply(conn, buffer)[0] for _ in range(count)]
        sender.join(30)
        assert not sender.is_alive() and statuses == [200] * count
