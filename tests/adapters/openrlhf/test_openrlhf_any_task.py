"""Estimator-only PlanPO in OpenRLHF: an agent of the run's own (an ALFWorld-style room: 10 on success, else 0;
``scores`` its 0/1 flag), no planshape reward and no TravelPlanner files; OpenRLHF's real executor, samples
generator, ``train_step`` and ``split_rollout_samples`` into the wrapped ``compute_advantages_and_returns``;
the advantages equal the paper's equations in plain loops (``tests/paper_reference.py``), token for token."""

from __future__ import annotations

import asyncio
import json

import pytest
import ray
import torch
from openrlhf.trainer.ppo_utils.samples_generator import SamplesGenerator
from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor
from openrlhf_harness import ScriptedEngine, sampling_params
from paper_reference_by_path import reference as _reference
from planshape.adapters.openrlhf import CONFIG_ENV, SETUP_HOOK
from planshape.adapters.openrlhf.advantages import patch_openrlhf
from planshape.adapters.openrlhf.config import RAY_SETUP_HOOK_ENV
from planshape.shaping.facade import ConfigError
from test_openrlhf_advantages import N, make_trainer, trainer_args

planpo_reference, runs, token_reference = _reference.planpo_reference, _reference.runs, _reference.token_reference

PROMPT = "You are in a room with a door. Open it.\n"


class Room(AgentInstanceBase):
    """go to -> the room answers; open door -> success (10); anything else ends the episode (0)."""

    def __init__(self) -> None:
        pass

    async def step(self, state_dict: dict) -> dict:
        text = str(state_dict.get("action_text") or "")
        if text.startswith("go to"):
            return {"rewards": torch.tensor(0.0), "scores": torch.tensor(0.0), "done": False,
                    "environment_feedback": "\nYou arrive.\n", "extra_logs": {}}
        won = text.startswith("open door")
        return {"rewards": torch.tensor(10.0 if won else 0.0), "scores": torch.tensor(float(won)), "done": True,
                "environment_feedback": "", "extra_logs": {}}


SCRIPTS = [["go to door", "open door"], ["open door"], ["go to table", "go to the door slowly", "open door now"],
           ["sit down"], ["go to door", "open door"], ["jump"], ["go to window", "open door"], ["cry"]]


@pytest.fixture
def room_job(tmp_path, monkeypatch):
    config = tmp_path / "planshape.json"
    config.write_text(json.dumps({"total_steps": 500, "success": {"by": "threshold", "threshold": 10}}))
    monkeypatch.setenv(CONFIG_ENV, str(config))
    monkeypatch.setenv(RAY_SETUP_HOOK_ENV, SETUP_HOOK)
    monkeypatch.setattr(ray, "get", lambda refs: refs)
    patch_openrlhf()
    return config


def _samples(tokenizer, agent: type = Room, scripts: list[list[str]] = SCRIPTS):
    """OpenRLHF's executor over ``agent``, each script's turns written by the scripted engine, and the samples."""
    executor = MultiTurnAgentExecutor(agent)

    async def run():
        return await asyncio.gather(*(executor.execute(PROMPT, "room", sampling_params(), 10_000, tokenizer,
                                                       ScriptedEngine(tokenizer, turns)) for turns in scripts))

    responses = asyncio.run(run())
    return responses, [SamplesGenerator._process_response_into_experience(None, r, max_len=10_000)
                       for r in responses]


@pytest.mark.parametrize("success", [{"by": "threshold", "threshold": 10}, {"by": "flag", "flag": "scores"}])
def test_estimator_only_train_step_equals_the_paper(room_job, tokenizer, tmp_path, success):
    room_job.write_text(json.dumps({"total_steps": 500, "success": success}))
    responses, samples = _samples(tokenizer)
    trainer = make_trainer(trainer_args(tmp_path), tokenizer)
    trainer.train_step(samples, 100)
    experiences = trainer.actor_model_group.appended
    width = max(len(r["observation_tokens"]) - 1 for r in responses)
    mask = [[0] * width for _ in responses]
    for row, response in enumerate(responses):  # action ranges, shifted as OpenRLHF aligns them to log-probs
        for start, end in response["action_ranges"]:
            mask[row][start - 1:end - 1] = [1] * (end - start)
    rewards = [10.0 if turns[-1].startswith("open door") else 0.0 for turns in SCRIPTS]
    lengths = [[end - start for start, end in runs(row)] for row in mask]
    assert [len(t) for t in lengths] == [len(turns) for turns in SCRIPTS]
    per_turn = planpo_reference([i // N for i in range(len(SCRIPTS))], rewards, [r == 10 for r in rewards],
                                lengths, alpha=0.1 - 0.05 * 100 / 500)
    expected = torch.tensor(token_reference(mask, per_turn), dtype=torch.float32)
    seen = 0
    for exp in experiences:
        w = exp.action_mask.shape[1]
        for row, index in enumerate(exp.index):
            torch.testing.assert_close(exp.advantages[row], expected[index, :w], rtol=1e-5, atol=1e-6)
            assert exp.rewards[row].item() == rewards[index]  # the run's own reward, not rescored
            seen += 1
    assert seen == len(SCRIPTS) and expected.abs().sum() > 0


def test_a_flag_openrlhf_does_not_carry_fails_at_start_up(room_job, tokenizer, tmp_path):
    room_job.write_text(json.dumps({"total_steps": 500, "success": {"by": "flag", "flag": "acc"}}))
    with pytest.raises(ConfigError, match="success.flag='acc'"):
        make_trainer(trainer_args(tmp_path), tokenizer)
