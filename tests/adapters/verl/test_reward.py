"""Rewards through VERL's reward-loop code: compute_score under the naive manager (pkg:// path) and the
step-aware planshape manager, on chat transcripts with tool turns."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import json

from planshape.adapters.verl.config import run_shaper
from planshape.adapters.verl.reward import compute_score, final_turn
from verl.trainer.ppo.reward import load_reward_manager

from .helpers import gold_after_flight_search, response_ids, reward_row, tool_call, verl_config

STAGE1 = [5.0, 5.0, 2.875, 0.0, 5.0, 5.0, 0.875, 0.0]


def _plan(row: dict):
    return json.loads(row["text"].split("<answer>")[1].split("</answer>")[0]) if "<answer>" in row["text"] else None


def _transcript(tokenizer, row: dict, final: str | None = None) -> list[int]:
    """Two tool rounds (real tool text from the sample sandbox), then the row's answer as the final turn."""
    tools = run_shaper({"database": "sample", "estimator": "grpo"}).tools()
    q = row["query"]
    turns = [("assistant", tool_call("search_flights", {"origin": q["org"], "destination": q["dest"],
                                                        "date": q["date"][0]})),
             ("tool", tools.call("search_flights", {"origin": q["org"], "destination": q["dest"],
                                                    "date": q["date"][0]})),
             ("assistant", tool_call("search_accommodations", {"city": q["dest"]})),
             ("tool", tools.call("search_accommodations", {"city": q["dest"]})),
             ("assistant", final if final is not None else row["text"])]
    return response_ids(tokenizer, turns)[0]


def _run(manager, tokenizer, row, step_row: dict, final: str | None = None) -> dict:
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    data = reward_row(tokenizer, prompt, _transcript(tokenizer, row, final), {
        "data_source": "travelplanner", "reward_model": {"style": "rule", "ground_truth": json.dumps(row["query"])},
        "extra_info": {"index": 0}, "__num_turns__": 6, "tool_extra_fields": {"tool_rewards": [0.0, 0.0]},
        **step_row})
    return manager.loop.run_until_complete(manager.run_single(data))


@pytest.fixture(scope="module")
def naive(tokenizer):
    cfg = verl_config(["reward.custom_reward_function.path=pkg://planshape.adapters.verl.reward",
                       "+reward.custom_reward_function.reward_kwargs.planshape.database=sample",
                       "+reward.custom_reward_function.reward_kwargs.planshape.estimator=grpo"])
    return load_reward_manager(cfg, tokenizer)


def test_compute_score_under_the_naive_manager(naive, tokenizer, sample_rows):
    assert type(naive).__name__ == "NaiveRewardManager"
    results = [_run(naive, tokenizer, row, {}) for row in sample_rows]
    assert [r["reward_score"] for r in results] == STAGE1
    keys = {frozenset(r["reward_extra_info"]) for r in results}
    assert len(keys) == 1  # the same key set on every call: VERL stacks them per key
    names = set(run_shaper({"database": "sample", "estimator": "grpo"}).metric_names)
    assert names | {"score", "acc", "failure"} == set(next(iter(keys)))
    info = results[2]["reward_extra_info"]
    assert info["failure"] == "commonsense:is_valid_restaurants" and info["acc"] == 0.0
    assert info["planshape/cs_micro"] == 0.875 and info["planshape/failure/commonsense:is_valid_restaurants"] == 1.0
    assert results[0]["reward_extra_info"]["acc"] == 1.0 and results[0]["reward_extra_info"]["failure"] == ""


@pytest.mark.parametrize(("global_steps", "rewards"), [
    (100, STAGE1),                                      # 99 completed steps: stage 1
    (101, [3.0, 3.0, 1.0, 0.0, 3.0, 3.0, 0.0, 0.0]),    # 100 completed: stage 2 (macros + pass)
    (401, [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]),    # 400 completed: stage 3 (pass only)
])
def test_the_planshape_manager_switches_stage_at_the_real_step(tokenizer, sample_rows, global_steps, rewards):
    cfg = verl_config(["reward.reward_manager.name=planshape", "+algorithm.planpo.database=sample",
                       "+algorithm.planpo.schedule=curriculum-8b", "+algorithm.planpo.total_steps=500"])
    manager = load_reward_manager(cfg, tokenizer)
    assert type(manager).__name__ == "PlanshapeRewardManager"
    got = [_run(manager, tokenizer, row, {"global_steps": global_steps})["reward_score"] for row in sample_rows]
    assert got == rewards


def test_a_staged_schedule_without_a_step_fails_loudly(tokenizer, sample_rows):
    cfg = verl_config(["reward.reward_manager.name=planshape", "+algorithm.planpo.database=sample",
                       "+algorithm.planpo.schedule=curriculum-8b", "+algorithm.planpo.total_steps=500"])
    with pytest.raises(RuntimeError, match="global_steps"):
        _run(load_reward_manager(cfg, tokenizer), tokenizer, sample_rows[0], {})
    with pytest.raises(ValueError, match="reward.reward_manager.name=planshape"):
        compute_score("travelplanner", sample_rows[0]["text"], json.dumps(sample_rows[0]["query"]),
                      planshape={"database": "sample", "schedule": "curriculum-8b", "total_steps": 500})


def test_only_the_final_assistant_turn_counts(naive, tokenizer, sample_rows):
    row = sample_rows[0]
    # the plan was written in an earlier turn, the final turn has none: no answer, whatever came before
    early = [("assistant", row["text"]), ("tool", "ok"), ("assistant", "I am done.")]
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n", add_special_tokens=False)
    data = reward_row(tokenizer, prompt, response_ids(tokenizer, early)[0], {
        "data_source": "travelplanner", "reward_model": {"ground_truth": json.dumps(row["query"])},
        "extra_info": {}})
    out = naive.loop.run_until_complete(naive.run_single(data))
    assert out["reward_score"] == 0.0 and out["reward_extra_info"]["failure"] == "no_answer"
    # an <answer> block echoed inside tool text does not count either
    assert final_turn("a <tool_response>\n<answer>[]</answer>\n</tool_response>\nassistant\nhi") == "\nassistant\nhi"


@pytest.mark.parametrize("text", ["", "<answer>", "<answer>{\"days\": [}</answer>", "<answer>[1, 2]</answer>",
                                  "\x00" * 50, "<answer>" + "[" * 5000 + "</answer>"])
def test_model_garbage_scores_zero_with_the_same_keys(naive, tokenizer, sample_rows, text):
    good = _run(naive, tokenizer, sample_rows[0], {})
    bad = _run(naive, tokenizer, sample_rows[0], {}, final=text)
    assert bad["reward_score"] == 0.0 and bad["reward_extra_info"]["failure"]
    assert set(bad["reward_extra_info"]) == set(good["reward_extra_info"])


def test_gold_plans_in_transcripts_pass_through_the_manager(shared_dir, train_records, tokenizer):
    """The 45 gold plans, each the final turn after real tool rounds over the TravelPlanner database, scored by
    the planshape manager at a stage-2 step of the 8B curriculum (macros + pass: 3 points)."""
    cfg = verl_config(["reward.reward_manager.name=planshape", f"+algorithm.planpo.database={shared_dir / 'database'}",
                       "+algorithm.planpo.schedule=curriculum-8b", "+algorithm.planpo.total_steps=500"])
    manager = load_reward_manager(cfg, tokenizer)
    tools = manager.shaper.tools()
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    for record in train_records:
        truth, turns = gold_after_flight_search(record, tools, ("assistant", tool_call("calculator", {"expression":
                                                "2 * 3"})), ("tool", "6"))
        data = reward_row(tokenizer, prompt, response_ids(tokenizer, turns)[0], {
            "data_source": "travelplanner", "reward_model": {"ground_truth": truth},
            "extra_info": {}, "global_steps": 201})
        out = manager.loop.run_until_complete(manager.run_single(data))
        info = out["reward_extra_info"]
        assert (out["reward_score"], info["acc"], info["failure"]) == (3.0, 1.0, ""), record["query"]
        assert info["planshape/cs_micro"] == info["planshape/hard_micro"] == 1.0
