"""The reward file, loaded and called by OpenRLHF's own ``SingleTurnAgentExecutor`` and turned into experiences by
its own ``SamplesGenerator`` code."""

from __future__ import annotations

import asyncio
import json

import pytest
import torch
from conftest import EXAMPLES
from openrlhf.trainer.ppo_utils.experience import Experience
from openrlhf.trainer.ppo_utils.samples_generator import SamplesGenerator
from openrlhf.utils.agent import SingleTurnAgentExecutor
from openrlhf_harness import ScriptedEngine, sampling_params
from planshape.adapters.openrlhf import CONFIG_ENV, SETUP_HOOK
from planshape.adapters.openrlhf.config import RAY_SETUP_HOOK_ENV
from planshape.adapters.openrlhf.reward import make_reward_func
from planshape.shaping.facade import ConfigError, Shaper

PROMPT = "<|im_start|>user\nPlan my trip.<|im_end|>\n<|im_start|>assistant\n"


def rollout(executor, tokenizer, answer: str, label) -> dict:
    engine = ScriptedEngine(tokenizer, [answer])
    return asyncio.run(executor.execute(PROMPT, label, sampling_params(), 4096, tokenizer, engine))


@pytest.fixture
def executor(stage1_config, monkeypatch):
    """OpenRLHF's executor for ``--reward.remote_url .../reward_func.py``: it imports the shipped file by path."""
    monkeypatch.setenv(CONFIG_ENV, stage1_config)
    return SingleTurnAgentExecutor(str(EXAMPLES / "reward_func.py"))


def test_rewards_scores_and_every_metric_reach_openrlhf(executor, tokenizer, stage1_config, passing, over_budget):
    shaper = Shaper.from_mapping(stage1_config)
    for answer, query in (passing, over_budget):
        out = rollout(executor, tokenizer, answer, json.dumps(query))
        expected = shaper.score(answer, query, 0)
        assert float(out["reward"]) == pytest.approx(expected.reward)
        assert float(out["scores"]) == float(expected.success)
        assert set(out["extra_logs"]) == set(shaper.metric_names)
        assert out["extra_logs"] == pytest.approx(expected.metrics())
    assert float(rollout(executor, tokenizer, *passing)["reward"]) == 5.0  # stage 1: five weights of 1


@pytest.mark.parametrize("answer,label", [
    ("no answer at all", None),                       # nothing to score
    ("<answer>[{\"days\": 1}]</answer>", None),       # schema failure
    ("<answer>" + "{" * 5000 + "</answer>", None),    # deep garbage
    ("<answer>[]</answer>", "not json"),              # a broken label must not become a None reward
    ("<answer>[]</answer>", json.dumps({"query": "x"})),
])
def test_whatever_the_sample_it_gets_a_dict_with_the_same_keys(executor, tokenizer, stage1_config, passing,
                                                               answer, label):
    shaper = Shaper.from_mapping(stage1_config)
    out = rollout(executor, tokenizer, answer, label if label is not None else json.dumps(passing[1]))
    assert float(out["reward"]) == 0.0 and float(out["scores"]) == 0.0
    assert set(out["extra_logs"]) == set(shaper.metric_names)


def test_samples_concatenate_into_one_experience(executor, tokenizer, passing, over_budget):
    """OpenRLHF stacks per-sample info key by key: a key missing from one sample would break the batch."""
    outs = [rollout(executor, tokenizer, a, json.dumps(q)) for a, q in (passing, over_budget, ("junk", passing[1]))]
    samples = [SamplesGenerator._process_response_into_experience(None, o, max_len=4096) for o in outs]
    batch = Experience.concat_experiences(samples, tokenizer.pad_token_id)
    assert batch.rewards.tolist()[0] == 5.0 and batch.rewards.tolist()[2] == 0.0
    assert all(v.shape == (3,) for v in batch.info.values())
    assert batch.info["planshape/failure/hard:valid_cost"].tolist() == [0.0, 1.0, 0.0]
    assert batch.info["planshape/failure/no_answer"].tolist() == [0.0, 0.0, 1.0]


def test_a_staged_schedule_without_the_setup_hook_fails_when_the_actor_starts(curriculum_config, monkeypatch):
    monkeypatch.delenv(RAY_SETUP_HOOK_ENV, raising=False)
    with pytest.raises(ConfigError, match="setup hook"):
        make_reward_func(curriculum_config)
    monkeypatch.setenv(RAY_SETUP_HOOK_ENV, SETUP_HOOK)  # what Ray sets in every worker of a hooked job
    reward_func = make_reward_func(curriculum_config)
    assert set(reward_func(["x"], ["x"], ["{}"])) == {"rewards", "scores", "extra_logs"}


def test_a_bad_config_fails_when_the_file_is_loaded(tmp_path, monkeypatch):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"database": "sample", "schedule": "stage9"}))
    monkeypatch.setenv(CONFIG_ENV, str(bad))
    with pytest.raises(ConfigError, match="schedule"):
        SingleTurnAgentExecutor(str(EXAMPLES / "reward_func.py"))


def test_rewards_are_tensors_openrlhf_can_stack(stage1_config, passing):
    out = make_reward_func(stage1_config)([PROMPT + passing[0]], [PROMPT], [json.dumps(passing[1])])
    assert isinstance(out["rewards"], torch.Tensor) and out["rewards"].shape == (1,)


@pytest.mark.parametrize("label", ["not json", json.dumps({"query": "x"})])
def test_an_unscorable_sample_is_counted_under_exactly_one_failure_category(executor, tokenizer, label):
    out = rollout(executor, tokenizer, "<answer>[]</answer>", label)
    failures = {k: v for k, v in out["extra_logs"].items() if k.startswith("planshape/failure/")}
    assert sum(failures.values()) == 1.0 and failures["planshape/failure/error"] == 1.0
