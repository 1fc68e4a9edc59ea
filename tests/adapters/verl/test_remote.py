"""VERL's reward loop scoring over a real ``planshape serve`` on 127.0.0.1: the async ``compute_score`` of
``adapters/verl/remote.py`` under VERL's own naive manager gives what the in-process ``compute_score`` gives, key
for key, at the row's step; a server that goes away costs failing scores with reasons, never the step."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import json

from verl.trainer.ppo.reward import load_reward_manager

from tests.serve.server import Server, with_token

from .helpers import reward_row, verl_config
from .test_reward import STAGE1, _transcript

CONFIG = {"database": "sample", "estimator": "grpo", "schedule": "curriculum-8b", "total_steps": 500}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    srv, token = with_token(CONFIG, tmp_path_factory.mktemp("served"), "--step", "0")
    yield srv, token
    srv.stop()


def _manager(tokenizer, url: str, token: str | None, *more: str):
    overrides = ["reward.custom_reward_function.path=pkg://planshape.adapters.verl.remote",
                 f"+reward.custom_reward_function.reward_kwargs.server.url={url}", *more]
    if token:
        overrides.append(f"+reward.custom_reward_function.reward_kwargs.server.token_file={token}")
    return load_reward_manager(verl_config(overrides), tokenizer)


def _score(manager, tokenizer, row, extra_info: dict) -> dict:
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    data = reward_row(tokenizer, prompt, _transcript(tokenizer, row), {
        "data_source": "travelplanner", "reward_model": {"style": "rule", "ground_truth": json.dumps(row["query"])},
        "extra_info": extra_info, "__num_turns__": 6, "tool_extra_fields": {"tool_rewards": [0.0, 0.0]}})
    return manager.loop.run_until_complete(manager.run_single(data))


def test_remote_compute_score_under_the_naive_manager_is_the_in_process_one(served, tokenizer, sample_rows):
    srv, token = served
    remote = _manager(tokenizer, srv.url, token)
    local = load_reward_manager(verl_config([
        "reward.custom_reward_function.path=pkg://planshape.adapters.verl.reward",
        *(f"+reward.custom_reward_function.reward_kwargs.planshape.{k}={v}" for k, v in CONFIG.items())]), tokenizer)
    assert type(remote).__name__ == "NaiveRewardManager"
    for extra_info, rewards in (({"index": 0}, None), ({"index": 0, "global_steps": 101}, None),
                                ({"index": 0, "global_steps": 401}, [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0])):
        got = [_score(remote, tokenizer, row, extra_info) for row in sample_rows]
        if "global_steps" in extra_info:
            want = [_score(local, tokenizer, row, extra_info) for row in sample_rows]
            assert got == want  # reward and every reward_extra_info key and value
        else:  # no step reaches compute_score: the server's --step 0 (stage 1)
            assert [g["reward_score"] for g in got] == STAGE1
        if rewards:
            assert [g["reward_score"] for g in got] == rewards
    assert {frozenset(g["reward_extra_info"]) for g in got} == {frozenset(want[0]["reward_extra_info"])}


def test_settings_are_checked_and_a_gone_server_costs_only_scores(tokenizer, sample_rows, tmp_path):
    srv = Server(CONFIG, tmp_path / "gone", "--workers", "1", "--step", "0")
    manager = _manager(tokenizer, srv.url, None, "+reward.custom_reward_function.reward_kwargs.server.timeout_s=5",
                       "+reward.custom_reward_function.reward_kwargs.server.retries=1")
    try:
        first = _score(manager, tokenizer, sample_rows[0], {"index": 0})
    finally:
        srv.stop()
    gone = _score(manager, tokenizer, sample_rows[0], {"index": 0})
    assert first["reward_score"] == 5.0 and gone["reward_score"] == 0.0
    info = gone["reward_extra_info"]
    assert info["failure"] == "error" and info["planshape/failure/error"] == 1.0
    assert set(info) == set(first["reward_extra_info"])  # the same keys: VERL stacks them
    from planshape.adapters.verl.remote import compute_score

    bad = _manager(tokenizer, srv.url, None, "+reward.custom_reward_function.reward_kwargs.server.port=1")
    with pytest.raises(ValueError, match="unknown reward_kwargs.server"):
        _score(bad, tokenizer, sample_rows[0], {"index": 0})
    with pytest.raises(ValueError, match="server.url"):
        manager.loop.run_until_complete(compute_score("tp", "x", "{}", server=None))
