"""The adapter contract (``tests/adapters/conformance.py``) on the TRL adapter."""

from __future__ import annotations

import json

import pytest
from planshape.adapters.trl.check import check_launch
from planshape.adapters.trl.reward import PlanshapeReward
from planshape.shaping.facade import Shaper
from transformers import TrainerState

from ..conformance import *  # noqa: F403
from ..conformance import SETTINGS, Contract


def _reward(texts, queries):
    reward = PlanshapeReward(Shaper.from_mapping(SETTINGS))
    return reward(prompts=[""] * len(texts), completions=list(texts), planshape_query=[json.dumps(q) for q in queries],
                  trainer_state=TrainerState(global_step=0))


@pytest.fixture
def contract():
    return Contract("trl", "trl", lambda tmp: check_launch(config=SETTINGS, run_steps=10), _reward,
                    ["--config", "x.yaml"])
