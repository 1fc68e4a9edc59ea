"""Configuration mistakes stop ``planshape serve`` before it listens, each with a message that says what to fix."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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
