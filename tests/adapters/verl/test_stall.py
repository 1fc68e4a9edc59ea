"""A check that never returns does not hold up VERL's reward loop. VERL scores in ``RewardLoopWorker``: every
row of a batch is a task gathered on one event loop, and the manager hands scoring to the loop's thread pool,
where SIGALRM cannot reach. With the stall probe (a plugin check that sleeps or spins on a word in the query),
the batch returns within the budget plus a small margin, the stuck rows are scored ``timeout`` and the others
exactly as without them."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import json
import time

import numpy as np
import torch
from verl import DataProto
from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

from tests.stall_probe import stall_plugin, with_word

from .helpers import response_ids, verl_config

__all__ = ["stall_plugin"]
BUDGET = 1.0  # the one setting changed from the defaults (10 s), to keep the suite quick: same code path


def _batch(tokenizer, rows: list[dict]) -> DataProto:
    """Rows as VERL batches them: responses right-padded to one length, the padding masked out."""
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    responses = [response_ids(tokenizer, [("assistant", row["text"])])[0] for row in rows]
    width = max(map(len, responses))
    ids = torch.tensor([[*prompt, *r, *[tokenizer.pad_token_id] * (width - len(r))] for r in responses])
    mask = torch.tensor([[1] * (len(prompt) + len(r)) + [0] * (width - len(r)) for r in responses])
    batch = {"prompts": ids[:, :len(prompt)], "responses": ids[:, len(prompt):], "input_ids": ids,
             "attention_mask": mask, "position_ids": torch.arange(ids.shape[1]).expand(len(rows), -1)}
    non_tensors = {"data_source": ["travelplanner"] * len(rows),
                   "reward_model": [{"ground_truth": json.dumps(row["query"])} for row in rows],
                   "extra_info": [{"index": i} for i in range(len(rows))], "global_steps": [1] * len(rows)}
    return DataProto.from_dict(tensors=batch, non_tensors={k: np.array(v, dtype=object)
                                                           for k, v in non_tensors.items()})


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, tokenizer):
    """The tokenizer where VERL's worker loads it from (``actor_rollout_ref.model.path``)."""
    path = tmp_path_factory.mktemp("model")
    tokenizer.save_pretrained(path)
    return path


@pytest.mark.parametrize("reward", [
    ["reward.reward_manager.name=planshape", "+algorithm.planpo.database=sample",
     "+algorithm.planpo.estimator=grpo", f"+algorithm.planpo.sample_budget_s={BUDGET}"],
    ["reward.custom_reward_function.path=pkg://planshape.adapters.verl.reward",
     "+reward.custom_reward_function.reward_kwargs.planshape.database=sample",
     "+reward.custom_reward_function.reward_kwargs.planshape.estimator=grpo",
     f"+reward.custom_reward_function.reward_kwargs.planshape.sample_budget_s={BUDGET}"],
], ids=["planshape-manager", "compute_score"])
def test_a_stuck_check_costs_its_sample_not_the_step(stall_plugin, tokenizer, sample_rows, model_dir, reward):
    rows = list(sample_rows[:4])
    rows[1], rows[2] = with_word(rows[1], "SLEEP"), with_word(rows[2], "SPIN")
    worker = RewardLoopWorker(verl_config([*reward, f"actor_rollout_ref.model.path={model_dir}"]))
    worker.loop.run_until_complete(worker.compute_score_batch(_batch(tokenizer, rows[:1])))  # warm: store, imports
    start = time.perf_counter()
    out = worker.loop.run_until_complete(worker.compute_score_batch(_batch(tokenizer, rows)))
    took = time.perf_counter() - start
    # wall clock (a timeout): the two stuck rows run side by side in VERL's executor, so one budget, plus 1.5 s for
    # the other rows and a loaded machine; unstopped, the probe would hold the batch for 60 s
    assert took < BUDGET + 1.5, took
    info = [o["reward_extra_info"] for o in out]
    assert [i["failure"] for i in info[1:3]] == ["timeout", "timeout"]
    assert [o["reward_score"] for o in out[1:3]] == [0.0, 0.0]
    plain = worker.loop.run_until_complete(worker.compute_score_batch(_batch(tokenizer, [rows[0], rows[3]])))
    assert [o["reward_score"] for o in (out[0], out[3])] == [o["reward_score"] for o in plain]
    assert "planshape/failure/commonsense:stall_probe" in info[0]  # the probe really ran as a check

