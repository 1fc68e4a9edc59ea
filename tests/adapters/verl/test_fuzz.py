"""Seeded fuzz of the VERL entry points as VERL calls them: ``compute_score`` (keyword call from the naive
manager), the planshape manager's ``run_single`` on a one-row ``DataProto``, and the tools' ``execute`` and
config. Model text never raises; a trainer-side field either works or raises a ``ValueError`` naming it."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import asyncio
import json
import random

import numpy as np
import torch
from planshape.adapters.verl.reward import PlanshapeRewardManager, compute_score
from planshape.adapters.verl.tools import TOOL_CLASSES
from verl import DataProto

from tests.adapter_fuzz import CASES, label, model_text, must_not_raise, outcome, row_mapping, step_counter

from .helpers import verl_config

SETTINGS = {"database": "sample", "estimator": "grpo", "schedule": "stage1"}


def test_compute_score_under_fuzzed_model_text_and_row_fields(sample_rows):
    rng = random.Random(20)
    keys = set(compute_score("travelplanner", sample_rows[0]["text"], json.dumps(sample_rows[0]["query"]),
                             planshape=SETTINGS))
    failures = []
    for case in range(CASES):
        row = rng.choice(sample_rows)
        text = model_text(rng, row["text"])
        good = json.dumps(row["query"])

        def model_only() -> None:
            out = compute_score(data_source="travelplanner", solution_str=text, ground_truth=good,
                                extra_info={"index": case}, planshape=SETTINGS)
            assert set(out) == keys

        if (problem := must_not_raise(model_only)) is not None:
            failures.append(("model", case, problem))
        extra = row_mapping(rng, {"index": case, "global_steps": step_counter(rng)})
        truth = label(rng, row["query"])
        problem = outcome(lambda: compute_score(data_source="travelplanner", solution_str=text, ground_truth=truth,
                                                extra_info=extra, planshape=SETTINGS))
        if problem is not None:
            failures.append(("row", case, type(truth).__name__, type(extra).__name__, problem))
    assert failures == [], failures[:10]


def _row(tokenizer, text: str, reward_model, global_steps) -> DataProto:
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    text = text.encode("utf-8", "replace").decode("utf-8")  # token ids decode to valid text, whatever was sampled
    response = tokenizer.encode(text, add_special_tokens=False)[:40_000] or [tokenizer.pad_token_id]
    ids = torch.tensor([prompt + response])
    batch = {"prompts": ids[:, :len(prompt)], "responses": ids[:, len(prompt):], "input_ids": ids,
             "attention_mask": torch.ones_like(ids), "position_ids": torch.arange(ids.shape[1])[None]}
    non_tensors = {}
    for key, value in {"data_source": "travelplanner", "reward_model": reward_model, "extra_info": {},
                       "global_steps": global_steps}.items():
        column = np.empty(1, dtype=object)
        column[0] = value
        non_tensors[key] = column
    return DataProto.from_dict(tensors=batch, non_tensors=non_tensors)


def test_the_planshape_manager_under_fuzzed_rows(tokenizer, sample_rows):
    from verl.trainer.ppo.reward import load_reward_manager

    manager = load_reward_manager(verl_config(["reward.reward_manager.name=planshape",
                                               *(f"+algorithm.planpo.{k}={v}" for k, v in SETTINGS.items())]),
                                  tokenizer)
    assert isinstance(manager, PlanshapeRewardManager)
    rng = random.Random(21)
    failures = []
    for case in range(max(CASES // 5, 40)):
        row = rng.choice(sample_rows)
        text = model_text(rng, row["text"])
        good = {"style": "rule", "ground_truth": json.dumps(row["query"])}
        data = _row(tokenizer, text, good, 1)
        if (problem := must_not_raise(lambda: manager.loop.run_until_complete(manager.run_single(data)))):
            failures.append(("model", case, problem))
        reward_model = row_mapping(rng, {"style": "rule", "ground_truth": label(rng, row["query"])})
        data = _row(tokenizer, text, reward_model, step_counter(rng))
        if (problem := outcome(lambda: manager.loop.run_until_complete(manager.run_single(data)))) is not None:
            failures.append(("row", case, repr(reward_model)[:80], problem))
    assert failures == [], failures[:10]


@pytest.mark.parametrize("config", ["planshape", "database: sample", None, ["planshape"], 5,
                                    {"type": "native"}, {"planshape": 5}, {"planshape": {"database": "/nowhere"}}])
def test_a_bad_tool_config_names_what_to_fix(config):
    problem = outcome(lambda: TOOL_CLASSES[0](config))
    assert problem is None, problem
    with pytest.raises(ValueError, match="planshape"):
        TOOL_CLASSES[0](config)


def test_tools_under_fuzzed_model_arguments():
    tools = [cls({"type": "native", "planshape": {"database": "sample"}}) for cls in TOOL_CLASSES]
    rng = random.Random(22)
    values = [None, 1, -1, 1e308, "", "x" * 100_000, [], {}, "Harborview", "2022-03-10", "\ud800", [1] * 1000,
              {"a": {"b": [1]}}]
    failures = []
    for case in range(CASES):
        tool = rng.choice(tools)
        params = rng.choice([None, "not a dict", [1], {k: rng.choice(values) for k in rng.sample(
            ["origin", "destination", "date", "city", "state", "expression", "mode", "x"], rng.randrange(4))}])
        result = {}

        def call() -> None:
            response, reward, metrics = asyncio.run(tool.execute("id", params))
            result["text"] = response.text
            assert isinstance(response.text, str) and set(metrics) == {"error"}

        if (problem := must_not_raise(call)) is not None:
            failures.append((tool.name, case, repr(params)[:80], problem))
    assert failures == [], failures[:10]
