"""The contract on every supported OpenRLHF release (0.10.2 and 0.11.2 in CI): the 45 gold plans of the train
split get the schedule's maximum through OpenRLHF's own ``SingleTurnAgentExecutor`` loading the shipped reward
file, with every planshape metric in the ``extra_logs`` OpenRLHF logs; PlanPO through its
``compute_advantages_and_returns`` equal to the paper's loops: test_openrlhf_any_task.py; the release itself
against the table: test_openrlhf_cli_and_version.py."""

from __future__ import annotations

import asyncio
import json

from conftest import EXAMPLES
from openrlhf.utils.agent import SingleTurnAgentExecutor
from openrlhf_harness import ScriptedEngine, sampling_params
from planshape.adapters.openrlhf import CONFIG_ENV
from planshape.adapters.openrlhf.support import SUPPORT
from planshape.shaping.facade import Shaper, gold_answer, query_json

PROMPT = "<|im_start|>user\nPlan my trip.<|im_end|>\n<|im_start|>assistant\n"


def test_the_gold_plans_get_full_reward_through_openrlhfs_executor(shared_dir, train_records, tokenizer, tmp_path,
                                                                   monkeypatch):
    config = tmp_path / "planshape.json"
    config.write_text(json.dumps({"database": str(shared_dir / "database"), "schedule": "stage1", "estimator": "grpo"}))
    monkeypatch.setenv(CONFIG_ENV, str(config))
    executor = SingleTurnAgentExecutor(str(EXAMPLES / "reward_func.py"))  # as --reward.remote_url loads it
    shaper = Shaper.from_mapping(str(config))
    assert SUPPORT.in_range(SUPPORT.installed())
    rewards, logs = [], []
    for record in train_records:
        engine = ScriptedEngine(tokenizer, [gold_answer(record)])
        out = asyncio.run(executor.execute(PROMPT, query_json(record), sampling_params(), 8192, tokenizer,
                                           engine))
        rewards.append(float(out["reward"]))
        logs.append(out["extra_logs"])
    assert len(rewards) == 45 and rewards == [shaper.max_reward(0)] * 45 == [5.0] * 45
    assert all(set(log) == set(shaper.metric_names) for log in logs)
    assert all(float(log["planshape/pass"]) == 1.0 for log in logs)
