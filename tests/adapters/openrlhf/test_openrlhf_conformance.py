"""The adapter contract (``tests/adapters/conformance.py``) on the OpenRLHF adapter."""

from __future__ import annotations

import json

import pytest
from planshape.adapters.openrlhf.check import check_launch
from planshape.adapters.openrlhf.cli import write_files
from planshape.adapters.openrlhf.reward import make_reward_func

from tests.adapters.conformance import *  # noqa: F403
from tests.adapters.conformance import SETTINGS, Contract


def _launch(tmp_path):
    config = json.dumps(SETTINGS)
    write_files(tmp_path, config)
    return check_launch(["--algo.advantage.estimator", "group_norm", "--algo.kl.init_coef", "0",
                         "--rollout.n_samples_per_prompt", "8", "--train.agent_func_path",
                         str(tmp_path / "agent_func.py")], config)


def _reward(texts, queries):
    reward_func = make_reward_func(json.dumps(SETTINGS))
    return [float(reward_func([t], [""], [json.dumps(q)])["rewards"][0]) for t, q in zip(texts, queries, strict=True)]


@pytest.fixture
def contract():
    return Contract("openrlhf", "openrlhf", _launch, _reward, ["--config", "x.json"])
