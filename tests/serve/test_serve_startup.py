"""Configuration mistakes stop ``planshape serve`` before it listens, each with a message that says what to fix."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from tests.serve.server import Server, get

CASES = [
    ({"database": "sample", "schedule": "curriculum-8b", "total_steps": 500}, [], "--step"),  # staged, no step
    ({"estimator": "grpo"}, [], "no database"),
    ({"database": "/nonexistent/database"}, [], "/nonexistent/database"),
    ({"database": "sample", "schedule": "stage9"}, [], "schedule"),
    ({"database": "sample"}, ["--allow", "ten.0.0.0/8"], "--allow"),
    ({"database": "sample"}, ["--ray", "--resource", "planshape_cpu=-1"], "NAME=AMOUNT"),
    ({"database": "sample"}, ["--max-samples", "0"], "limits"),
    ({"database": "sample"}, ["--step", "-3"], "--step"),
]


@pytest.mark.parametrize(("config", "args", "words"), CASES, ids=[c[2] for c in CASES])
def test_a_mistake_stops_the_server_with_the_fix(config, args, words, tmp_path):
    path = tmp_path / "planshape.json"
    path.write_text(json.dumps(config))
    done = subprocess.run([sys.executable, "-m", "planshape.shaping.cli", "serve", "--config", str(path), "--port",
                           "1", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_busy_port_is_a_clear_error_before_anything_says_it_serves(tmp_path):
    path = tmp_path / "planshape.json"
    path.write_text(json.dumps({"database": "sample"}))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "planshape.shaping.cli", "serve", "--config", str(path),
                               "--port", str(port)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "scoring worker(s) at" not in done.stdout + done.stderr  # no address line for a server not serving
    assert (f"cannot serve the reward server on 127.0.0.1:{port} (Address already in use); the port is in use: pick "
            "another --port") in done.stderr
    assert "Traceback" not in done.stderr


def test_the_address_line_comes_once_the_server_answers(tmp_path):
    server = Server({"database": "sample"}, tmp_path)
    try:
        assert get(server.url + "/health")[0] == 200
        assert f"scoring worker(s) at http://127.0.0.1:{server.port}/get_reward" in server.log()
    finally:
        server.stop()
