"""Secure by default: loopback only unless told otherwise; a non-loopback bind needs a token or an allow-list;
no token or a wrong one is a 401 before any work, wherever the client can carry it; the token is never logged."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest

from tests.serve.server import Server, get, post, request


def _listening(port: int) -> list[str]:
    """The local addresses listening on ``port`` (from /proc/net/tcp and tcp6, as hex)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if int(hex_port, 16) == port and state == "0A":  # LISTEN
                found.append(address)
    return found


def test_the_default_bind_is_loopback_only(server):
    assert _listening(server.port) == ["0100007F"]  # 127.0.0.1, and nothing else


def _serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "planshape.shaping.cli", "serve", "--config",
                           '{"database": "sample"}', *args],
                          capture_output=True, text=True, timeout=120)


def test_a_non_loopback_bind_without_token_or_allow_list_is_refused():
    for host in ("0.0.0.0", "::", "10.1.2.3"):
        done = _serve("--host", host, "--port", "1")
        assert done.returncode == 2 and "--token-file" in done.stderr and "--allow" in done.stderr, done.stderr


def test_bad_token_files_are_refused_at_start(tmp_path):
    short = tmp_path / "short"
    short.write_text("abc")
    short.chmod(0o600)
    shared = tmp_path / "shared"
    shared.write_text(secrets.token_urlsafe(32))
    shared.chmod(0o644)
    for path, words in ((short, "at least 16"), (shared, "chmod 600"), (tmp_path / "none", "No such file")):
        done = _serve("--token-file", str(path), "--port", "1")
        assert done.returncode == 2 and words in done.stderr, done.stderr


@pytest.fixture(scope="module")
def guarded(gold, tmp_path_factory):
    folder = tmp_path_factory.mktemp("guarded")
    token = secrets.token_urlsafe(32)
    token_file = folder / "token"
    token_file.write_text(token + "\n")
    os.chmod(token_file, 0o600)
    srv = Server({**gold.config, "schedule": "stage1"}, folder, "--token-file", str(token_file), "--workers", "1",
                 "--log-requests")
    yield srv, token
    srv.stop()


def _samples_scored(srv: Server, token: str) -> float:
    status, text = get(srv.url + "/metrics", {"Authorization": f"Bearer {token}"})
    assert status == 200
    lines = [ln for ln in text.splitlines() if ln.startswith("planshape_samples_total")]
    return sum(float(ln.split()[-1]) for ln in lines)


def test_the_token_in_a_header_a_path_prefix_or_a_parameter(guarded, gold):
    srv, token = guarded
    body = {"query": [gold.query(0)], "prompts": [gold.prompts[0]], "labels": [gold.labels[0]]}
    before = _samples_scored(srv, token)
    refused = [post(srv.url + "/get_reward", body),
               post(srv.url + "/get_reward", body, {"Authorization": "Bearer " + token[:-1] + "x"}),
               post(srv.url + "/t/wrong-token-0123456789/get_reward", body),
               post(srv.url + "/get_reward?token=" + token.upper(), body),
               post(srv.url + "/get_reward", body, {"Authorization": token}),  # no scheme
               request(srv.url + "/get_reward", b"{" * 10_000_000),  # a huge broken body: still 401 first
               get(srv.url + "/metrics")]
    assert [status for status, _ in refused] == [401] * len(refused)
    assert all("token" in reply["error"] for _, reply in refused)
    assert _samples_scored(srv, token) == before  # nothing was scored for them
    accepted = [post(srv.url + "/get_reward", body, {"Authorization": f"Bearer {token}"}),
                post(srv.url + f"/t/{token}/get_reward", body),
                post(srv.url + f"/get_reward?token={token}", body),
                post(srv.url + f"/t/{token}/reward", {"prompt": "", "response": gold.answers[0],
                                                      "label": gold.labels[0]}),
                post(srv.url + f"/t/{token}/verify?x=1", {"responses_create_params": {"input": "q"},
                                                          "response": {"output": []}, "label": gold.labels[0]})]
    assert [status for status, _ in accepted] == [200] * 5
    assert [r["rewards"] for _, r in accepted[:3]] == [[5.0]] * 3 and accepted[3][1]["reward"] == 5.0
    assert get(srv.url + "/health")[0] == 200  # liveness needs no token (it tells nothing secret)
    assert _samples_scored(srv, token) == before + 5
    log = srv.log()
    assert "/get_reward -> 401" in log and "/get_reward -> 200" in log  # requests are logged when asked ...
    assert token not in log and token.upper() not in log  # ... and the token never is


def test_an_allow_list_refuses_other_clients(gold, tmp_path):
    body = {"query": [gold.query(0)], "prompts": [gold.prompts[0]], "labels": [gold.labels[0]]}
    srv = Server({**gold.config, "schedule": "stage1"}, tmp_path / "a", "--allow", "10.0.0.0/8", "--workers", "1")
    try:
        status, reply = post(srv.url + "/get_reward", body)
        assert status == 403 and "--allow" in reply["error"]
    finally:
        srv.stop()
    srv = Server({**gold.config, "schedule": "stage1"}, tmp_path / "b", "--allow", "127.0.0.0/8", "--workers", "1")
    try:
        assert post(srv.url + "/get_reward", body)[1]["rewards"] == [5.0]
    finally:
        srv.stop()
