"""TRL's ``environment_factory`` path: the environment class's tools are the toolbox's, and in a real
``GRPOTrainer`` step (the tiny in-process model, the tool loop's first turn scripted) ``get_reward`` gives exactly
the facade's reward of each rollout's final message; every ``planshape/...`` metric reaches the log."""

from __future__ import annotations

import json

import pytest
from planshape.shaping.facade import query_json

from ...environments.cases import BAD_CALLS, cases, facade_view, good_calls
from .scripted import TOOL_CALLS, scripted
from .test_trainer import G, grpo_config


@pytest.fixture(scope="module")
def full_shaper(shared_dir):
    from planshape.shaping.facade import Shaper

    return Shaper.from_mapping({"database": str(shared_dir / "database"), "mode": "strict", "total_steps": 1})


def test_the_environment_class_gives_the_toolbox_and_the_facade(full_shaper, train_records):
    from planshape.adapters.trl.environment import REWARD_NAME, travelplanner_env
    from transformers.utils import get_json_schema

    cls = travelplanner_env(full_shaper)
    env, box = cls(), full_shaper.tools()
    assert cls.__name__ == REWARD_NAME
    for schema in full_shaper.tool_schemas:  # the schema TRL derives from each method is the facade's
        got = get_json_schema(getattr(env, schema["function"]["name"]))["function"]
        assert got["description"] == schema["function"]["description"]
        assert got["parameters"]["required"] == schema["function"]["parameters"]["required"]
    for name, text, record in cases(train_records):
        assert env.reset(planshape_query=query_json(record), prompt=[]) is None
        for tool, arguments in good_calls(record):
            assert getattr(env, tool)(**arguments) == box.call(tool, arguments)
        for tool, arguments in BAD_CALLS:
            method = getattr(env, tool, None)
            if method is not None and isinstance(arguments, dict):
                assert method(**arguments).startswith("Error:")
        score = env._answer([{"role": "assistant", "content": text}], 0)
        assert facade_view(score) == facade_view(full_shaper.score(text, record, 0)), name
        assert env.get_reward() == score.reward
    env.reset(**{k: v for k, v in train_records[0].items()})  # a raw TravelPlanner row works too
    assert env._episode.record["query"] == train_records[0]["query"]


def test_without_the_answer_hand_over_get_reward_says_what_to_use(shaper, sample_records):
    from planshape.adapters.trl.environment import travelplanner_env

    env = travelplanner_env(shaper)()
    env.reset(planshape_query=query_json(sample_records[0]))
    with pytest.raises(RuntimeError, match="EnvironmentGRPOTrainer"):
        env.get_reward()


def test_a_grpo_step_with_the_environment_class(shaper, tokenizer, sample_records, sample_rollouts, tmp_path):
    from planshape.adapters.trl.data import to_dataset
    from planshape.adapters.trl.environment import EnvironmentGRPOTrainer, travelplanner_env
    from planshape.adapters.trl.reward import final_turn
    from planshape.adapters.trl.tiny import tiny_model

    class Recording(scripted(EnvironmentGRPOTrainer, sample_rollouts, G)):
        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            rewards = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
            self.__dict__.setdefault("seen", []).append(
                {"inputs": inputs, "completions": completions, "rewards": rewards.clone(),
                 "step": self.state.global_step, "names": list(self.reward_func_names)})
            return rewards

    trainer = Recording(model=tiny_model(tokenizer), args=grpo_config(tmp_path, max_steps=1),
                        train_dataset=to_dataset(sample_records, shaper), processing_class=tokenizer,
                        environment_factory=travelplanner_env(shaper))
    trainer.train()
    (batch,) = trainer.seen
    assert batch["names"] == ["planshape"]  # the environment owns the reward, logged as rewards/planshape
    box = shaper.tools()
    for i, (row, completion) in enumerate(zip(batch["inputs"], batch["completions"], strict=True)):
        want = shaper.score(final_turn(completion), json.loads(row["planshape_query"]), batch["step"])
        assert float(batch["rewards"][i, 0]) == pytest.approx(want.reward, abs=0, rel=1e-6)
        tool = next(m for m in completion if m["role"] == "tool")
        call = TOOL_CALLS[i % G]
        assert tool["content"] == box.call(call["name"], call["arguments"])
    rewards = [float(r) for r in batch["rewards"][:, 0]]
    assert max(rewards) == shaper.max_reward(0) and min(rewards) < max(rewards)
    (entry,) = [e for e in trainer.state.log_history if "loss" in e]
    assert entry["rewards/planshape/mean"] == pytest.approx(sum(rewards) / len(rewards), rel=1e-5)
    for name in shaper.metric_names:
        assert name in entry, name
    assert entry["planshape/reward"] == pytest.approx(entry["rewards/planshape/mean"], rel=1e-5)
