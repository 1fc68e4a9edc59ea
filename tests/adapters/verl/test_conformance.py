"""The adapter contract (``tests/adapters/conformance.py``) on the VERL adapter."""

from __future__ import annotations

import json

import pytest

from .conftest import require_verl

require_verl()

from planshape.adapters.verl.check import check_launch  # noqa: E402
from planshape.adapters.verl.config import run_shaper  # noqa: E402
from planshape.adapters.verl.data import prepare_data  # noqa: E402
from planshape.adapters.verl.reward import compute_score  # noqa: E402

from ..conformance import *  # noqa: E402, F403
from ..conformance import SETTINGS, Contract  # noqa: E402
from .test_check import overrides  # noqa: E402


def _launch(tmp_path, monkeypatch):
    prepare_data(run_shaper({"database": "sample", "estimator": "grpo"}), ["sample"], tmp_path, val_size=1)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PLANSHAPE_DATABASE", "sample")
    return check_launch(overrides("run_qwen3_8b_grpo_staged.sh"))


def _reward(texts, queries):
    return [compute_score("travelplanner", t, json.dumps(q), planshape=SETTINGS)["score"]
            for t, q in zip(texts, queries, strict=True)]


@pytest.fixture
def contract(monkeypatch):
    return Contract("verl", "verl", lambda tmp: _launch(tmp, monkeypatch), _reward, ["+algorithm.planpo.x=1"])
