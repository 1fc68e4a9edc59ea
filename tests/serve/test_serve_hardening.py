"""The probes a client without a token can send, as tests: a request line aiohttp cannot parse (a NUL byte) or a
URL over 8,190 bytes, both under the token's path, must echo the token in no reply and no log line, and a flood
of them logs a bounded number of lines and no traceback; slow clients (headers trickling in before any auth,
authorised bodies trickling in) are cut at the read timeouts; past --max-connections a connection is refused
before a byte of its request is read; an idle connection is closed; the server serves on throughout."""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time

import pytest

from tests.serve.server import Server, get, post

HEADER_TIMEOUT, READ_TIMEOUT, IDLE_TIMEOUT = 1.0, 2.0, 3.0


@pytest.fixture(scope="module")
def hardened(gold, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hardened")
    token = secrets.token_urlsafe(32)
    token_file = folder / "token"
    token_file.write_text(token)
    os.chmod(token_file, 0o600)
    srv = Server({**gold.config, "schedule": "stage1"}, folder, "--token-file", str(token_file), "--workers", "1",
                 "--header-timeout", str(HEADER_TIMEOUT), "--read-timeout", str(READ_TIMEOUT), "--idle-timeout",
                 str(IDLE_TIMEOUT), "--max-connections", "30")
    yield srv, token
    srv.stop()


def _raw(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(data)
        chunks = []
        while True:
            try:
                chunk = conn.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def _status(reply: bytes) -> int:
    """The status of a raw HTTP reply (aiohttp answers a request it could not parse as HTTP/1.0)."""
    line = reply.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[0].startswith(b"HTTP/1.") else 0


def _closed_within(conn: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``conn`` (None if still open after ``seconds``)."""
    start = time.monotonic()
    conn.settimeout(0.2)
    while time.monotonic() - start < seconds:
        try:
            if conn.recv(65536) == b"":
                return time.monotonic() - start
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - start
    return None


def test_a_nul_byte_or_an_over_long_url_under_the_token_path_echoes_no_token(hardened, gold):
    srv, token = hardened
    before = srv.log()
    probes = [f"POST /t/{token}/get_reward\x00 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".encode(),
              f"GET /t/{token}/get_reward?{'a' * 9000} HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
              f"POST /t/{token}/get_reward HTTP/1.1\r\nHost: x\r\nX-Long: {'b' * 9000}{token}\r\n\r\n".encode(),
              f"P\x00ST /t/{token}/x HTTP/1.1\r\n\r\n".encode()]
    for probe in probes:
        reply = _raw(srv.port, probe)
        assert _status(reply) == 400, reply[:200]
        assert token.encode() not in reply and b"a" * 100 not in reply
    assert get(srv.url + "/health")[0] == 200  # it serves on
    log = srv.log()[len(before):]
    assert token not in log and "Traceback" not in log
    assert "malformed" in log or "longer than" in log  # said, without the request's text


def test_a_flood_of_bad_requests_logs_a_bounded_number_of_lines(hardened):
    srv, token = hardened
    before = srv.log()
    for _ in range(200):
        _raw(srv.port, f"POST /t/{token}\x00/get_reward HTTP/1.1\r\n\r\n".encode())
    log = srv.log()[len(before):]
    assert len(log.splitlines()) <= 2, log[:2000]  # one line a minute at most, however many arrive
    assert token not in log and "Traceback" not in log
    assert post(srv.url + f"/t/{token}/get_reward", {"query": [], "prompts": [], "labels": []})[0] == 200


def test_twenty_slow_connections_are_cut_at_the_read_timeouts(hardened, gold):
    """10 clients send their headers a byte at a time before any auth; 10 authorised clients send a body a byte
    at a time: each is closed within its timeout (plus slack), not held for the probe's length."""
    srv, token = hardened
    body = (b'{"query": [], "prompts": [], "labels": []}' * 50)
    headers = f"POST /t/{token}/get_reward HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    cut: dict[str, list[float | None]] = {"headers": [], "body": []}
    lock = threading.Lock()

    def slow(kind: str) -> None:
        conn = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        start = time.monotonic()
        data = b"POST /get_reward HTTP/1.1\r\nHost: x\r\n" if kind == "headers" else body
        if kind == "body":
            conn.sendall(headers)
        closed = None
        for byte in data[:60]:
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                closed = time.monotonic() - start
                break
            time.sleep(0.25)
            conn.setblocking(False)
            try:
                if conn.recv(65536) == b"":
                    closed = time.monotonic() - start
                    break
            except BlockingIOError:
                pass
            except OSError:
                closed = time.monotonic() - start
                break
            finally:
                conn.setblocking(True)
        conn.close()
        with lock:
            cut[kind].append(closed)

    threads = [threading.Thread(target=slow, args=(kind,)) for kind in ("headers", "body") for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(t is not None and t < HEADER_TIMEOUT + 3 for t in cut["headers"]), cut["headers"]
    assert all(t is not None and t < READ_TIMEOUT + 3 for t in cut["body"]), cut["body"]
    assert get(srv.url + "/health")[0] == 200


def test_past_max_connections_a_connection_is_refused_before_its_request(hardened):
    srv, _ = hardened
    held = [socket.create_connection(("127.0.0.1", srv.port), timeout=5) for _ in range(30)]
    try:
        for conn in held:
            conn.sendall(b"G")  # inside a request: not idle, so only the header timeout could close them
        time.sleep(0.2)
        reply = _raw(srv.port, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _status(reply) == 503, reply[:200]
    finally:
        for conn in held:
            conn.close()
    time.sleep(0.3)
    assert get(srv.url + "/health")[0] == 200  # the slots came back


def test_an_idle_connection_is_closed(hardened):
    srv, _ = hardened
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _status(conn.recv(65536)) == 200
        took = _closed_within(conn, IDLE_TIMEOUT + 5)
        assert took is not None and took >= IDLE_TIMEOUT - 0.5, took


def test_replies_and_logs_never_hold_the_token(hardened, gold):
    """Every refused or odd request under the token's path (an unknown route, a wrong method, a bad step, bad
    JSON): the reply and the log hold no token."""
    srv, token = hardened
    before = srv.log()
    replies = [post(srv.url + f"/t/{token}/nowhere/{token}", {}),
               get(srv.url + f"/t/{token}/get_reward"),
               post(srv.url + f"/t/{token}/get_reward", {"query": [], "prompts": [], "labels": [], "step": token}),
               post(srv.url + f"/t/{token}/reward", [token]),
               post(srv.url + f"/get_reward/t/{token}", {})]
    assert [status for status, _ in replies] == [404, 405, 400, 400, 401]
    for _, reply in replies:
        assert token not in str(reply)
    assert token not in srv.log()[len(before):]
