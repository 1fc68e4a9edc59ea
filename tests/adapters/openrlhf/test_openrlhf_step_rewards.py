"""Per-turn rewards in OpenRLHF: an agent of the run's own that rewards every step (-0.1 for each move, 10 for
opening the door) and logs each step's reward on its final step (``turn_reward_logs``); OpenRLHF's real executor,
samples generator, ``train_step`` and ``split_rollout_samples`` into the wrapped ``compute_advantages_and_returns``.
OpenRLHF sums the steps' rewards into each sample's reward; the advantages equal plain loops of the estimators'
equations (``tests/paper_reference.py``) over the outcome and the per-turn rewards besides it, token for token."""

from __future__ import annotations

import json

import pytest
import torch
from openrlhf.utils.agent import AgentInstanceBase
from planshape.adapters.openrlhf.turn_rewards import turn_reward_logs
from planshape.shaping.facade import ConfigError
from test_openrlhf_advantages import N, make_trainer, trainer_args
from test_openrlhf_any_task import _samples as room_samples
from test_openrlhf_any_task import room_job
from test_openrlhf_estimators import _reference

__all__ = ["room_job"]  # a fixture of test_openrlhf_any_task.py, used here

PROMPT = "You are in a room with a door. Open it.\n"
MAX_TURNS = 6
MOVE = -0.1


class SteppedRoom(AgentInstanceBase):
    """go to -> -0.1 and the room answers; open door -> 10 (success); anything else -> 0 and the episode ends. The
    final step logs every step's reward (``turn_reward_logs``)."""

    def __init__(self) -> None:
        self.rewards: list[float] = []

    async def step(self, state_dict: dict) -> dict:
        text = str(state_dict.get("action_text") or "")
        if text.startswith("go to"):
            self.rewards.append(MOVE)
            return {"rewards": torch.tensor(MOVE), "scores": torch.tensor(0.0), "done": False,
                    "environment_feedback": "\nYou arrive.\n", "extra_logs": {}}
        won = text.startswith("open door")
        self.rewards.append(10.0 if won else 0.0)
        return {"rewards": torch.tensor(self.rewards[-1]), "scores": torch.tensor(float(won)), "done": True,
                "environment_feedback": "", "extra_logs": turn_reward_logs(self.rewards, MAX_TURNS)}


SCRIPTS = [["go to door", "open door"], ["open door"], ["go to table", "go to the door slowly", "open door now"],
           ["sit down"], ["go to door", "open door"], ["go to window", "jump"], ["go to window", "open door"],
           ["go to a", "go to b", "go to c", "cry"]]
FIELD = {"step_rewards": {"field": "turn_rewards"}, "total_steps": 500}
SUM = {"estimator_options": {"reward": "sum"}}
THRESHOLD = {"success": {"by": "threshold", "threshold": 10}}
CASES = {
    "gigpo": ({"estimator": "gigpo", "anchor": {"by": "tool_calls"}, **FIELD},
              lambda g, r, lengths, steps: _reference.gigpo_reference(g, r, lengths, [[()] * len(t) for t in lengths],
                                                                      step_rewards=steps)),
    "gigpo-verl-agent": ({"estimator": "gigpo", "anchor": {"by": "tool_calls"}, **FIELD,
                          "estimator_options": {"episode_stats": "turns", "norm": "none"}},
                         lambda g, r, lengths, steps: _reference.gigpo_reference(
                             g, r, lengths, [[()] * len(t) for t in lengths], use_std=False, step_rewards=steps,
                             episode_stats="turns")),
    "grpo-sum": ({"estimator": "grpo", **FIELD, **SUM},
                 lambda g, r, lengths, steps: _reference.grpo_reference(g, r, lengths, step_rewards=steps,
                                                                        reward="sum")),
    "rloo-sum": ({"estimator": "rloo", **FIELD, **SUM},
                 lambda g, r, lengths, steps: _reference.rloo_reference(g, r, lengths, steps, "sum")),
    "planpo-sum": ({"estimator": "planpo", **FIELD, **SUM, **THRESHOLD},
                   lambda g, r, lengths, steps: _reference.planpo_reference(
                       g, r, [x == 10 for x in r], lengths, 0.1 - 0.05 * 100 / 500, step_rewards=steps,
                       reward="sum")),
}


@pytest.fixture
def job(room_job):
    """A hooked job of the run's own agent (test_openrlhf_any_task.py's): each test writes its config."""
    return room_job


def _samples(tokenizer):
    return room_samples(tokenizer, SteppedRoom, SCRIPTS)


@pytest.mark.parametrize("name", list(CASES))
def test_train_step_writes_the_references_advantages(job, tokenizer, tmp_path, name):
    settings, reference = CASES[name]
    job.write_text(json.dumps(settings))
    responses, samples = _samples(tokenizer)
    assert [r["reward"] for r in responses] == pytest.approx(
        [MOVE * (len(t) - 1) + (10.0 if t[-1].startswith("open door") else 0.0) for t in SCRIPTS])  # summed
    args = trainer_args(tmp_path)
    trainer = make_trainer(args, tokenizer)
    trainer.train_step(samples, 100)
    width = max(len(r["observation_tokens"]) - 1 for r in responses)
    mask = [[0] * width for _ in responses]
    for row, response in enumerate(responses):  # action ranges, shifted as OpenRLHF aligns them to log-probs
        for start, end in response["action_ranges"]:
            mask[row][start - 1:end - 1] = [1] * (end - start)
    outcomes = [10.0 if turns[-1].startswith("open door") else 0.0 for turns in SCRIPTS]
    steps = [[MOVE] * (len(turns) - 1) + [0.0] for turns in SCRIPTS]
    lengths = [[end - start for start, end in _reference.runs(row)] for row in mask]
    groups = [i // N for i in range(len(SCRIPTS))]
    per_turn = reference(groups, outcomes, lengths, steps)
    assert per_turn != reference(groups, outcomes, lengths, None)  # the per-turn rewards count
    low, high = args.reward.clip_range  # OpenRLHF bounds every token's advantage, as its group_norm reward
    expected = torch.tensor(_reference.token_reference(mask, per_turn), dtype=torch.float32).clamp(low, high)
    seen = 0
    for exp in trainer.actor_model_group.appended:
        w = exp.action_mask.shape[1]
        for row, index in enumerate(exp.index):
            torch.testing.assert_close(exp.advantages[row], expected[index, :w], rtol=1e-5, atol=1e-6)
            seen += 1
        assert not any(str(k).startswith("turn_rewards/") for k in exp.info)  # inputs, not metrics
    assert seen == len(SCRIPTS)


def test_an_agent_that_logs_too_few_turns_is_named(job, tokenizer, tmp_path):
    job.write_text(json.dumps(CASES["gigpo"][0]))
    responses, samples = _samples(tokenizer)
    for sample in samples:
        for k in range(2, MAX_TURNS):
            sample.info.pop(f"turn_rewards/{k}", None)
    trainer = make_trainer(trainer_args(tmp_path), tokenizer)
    with pytest.raises(ConfigError, match=r"has 3 turns but its extra_logs hold turn_rewards/k for k in \[0, 1\]"):
        trainer.train_step(samples, 100)


def test_logged_per_turn_rewards_the_config_does_not_read_are_refused(job, tokenizer, tmp_path):
    job.write_text(json.dumps({"estimator": "gigpo", "anchor": {"by": "tool_calls"}, "total_steps": 500}))
    _, samples = _samples(tokenizer)
    trainer = make_trainer(trainer_args(tmp_path), tokenizer)
    with pytest.raises(ConfigError, match=r"extra_logs \(turn_rewards/<k>\) carries per-turn rewards .* "
                                          r"step_rewards: \{field: turn_rewards\}"):
        trainer.train_step(samples, 100)


@pytest.mark.parametrize(("settings", "message"), [
    ({"estimator": "grpo", **FIELD}, "set estimator_options.reward=sum"),
    ({"database": "sample", "estimator": "grpo", **SUM, **FIELD}, "planshape's TravelPlanner agent rewards the final"),
])
def test_refused_at_start_up(job, tokenizer, tmp_path, settings, message):
    job.write_text(json.dumps(settings))
    with pytest.raises(ConfigError, match=message):
        make_trainer(trainer_args(tmp_path), tokenizer)


def test_turn_reward_logs_keep_one_key_set():
    assert turn_reward_logs([-0.1, 10], 3) == {"turn_rewards/0": -0.1, "turn_rewards/1": 10.0, "turn_rewards/2": 0.0}
    with pytest.raises(ValueError, match="raise max_turns"):
        turn_reward_logs([0.0] * 4, 3)
