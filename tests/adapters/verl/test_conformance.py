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
from planshape.adapters.verl.support import SUPPORT, V1  # noqa: E402

from ..conformance import *  # noqa: E402, F403
from ..conformance import SETTINGS, Contract  # noqa: E402
from .helpers import overrides  # noqa: E402


def _launch(tmp_path, monkeypatch):
    prepare_data(run_shaper({"database": "sample", "estimator": "grpo"}), ["sample"], tmp_path, val_size=1)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PLANSHAPE_DATABASE", "sample")
    args = overrides("run_qwen3_8b_grpo_staged.sh")
    if not SUPPORT.has(V1):  # a 0.7/0.8 launch: no V1 keys, one stage (no step reaches the reward there)
        args = [a for a in args if not a.startswith(("trainer.v1.", "trainer.use_v1"))]
        args.append("+algorithm.planpo.schedule=stage1")
    return check_launch(args)


def _reward(texts, queries):
    return [compute_score("travelplanner", t, json.dumps(q), planshape=SETTINGS)["score"]
            for t, q in zip(texts, queries, strict=True)]


@pytest.fixture
def contract(monkeypatch):
    return Contract("verl", "verl", lambda tmp: _launch(tmp, monkeypatch), _reward, ["+algorithm.planpo.x=1"])
