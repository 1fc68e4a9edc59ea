"""A check that never returns does not hold up an OpenRLHF rollout. OpenRLHF scores in its vLLM actor's event
loop: the reward file through ``asyncio.to_thread(reward_func, ...)``, the agent's final turn in ``step`` (which
hands scoring to ``asyncio.to_thread``), many samples gathered at once; SIGALRM cannot reach those threads. With
the stall probe (a plugin check that sleeps or spins on a word in the query), the batch returns within the budget
plus a small margin, the stuck samples are scored ``timeout`` and the others exactly as without them."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from conftest import EXAMPLES, write_config
from openrlhf.trainer.ray.vllm_engine import _load_agent_executor
from openrlhf.utils.agent import SingleTurnAgentExecutor
from openrlhf_harness import ScriptedEngine, sampling_params
from planshape.adapters.openrlhf import CONFIG_ENV

from tests.stall_probe import stall_plugin

__all__ = ["stall_plugin"]
PROMPT = "<|im_start|>user\nPlan my trip.<|im_end|>\n<|im_start|>assistant\n"
BUDGET = 1.0  # the one setting changed from the defaults (10 s), to keep the suite quick: same code path


def _with_word(query: dict, word: str) -> dict:
    return {**query, "query": f"{query['query']} {word}"}


async def _batch(executor, tokenizer, answer: str, labels: list[str]) -> list[dict]:
    return await asyncio.gather(*(executor.execute(PROMPT, label, sampling_params(), 200_000, tokenizer,
                                                   ScriptedEngine(tokenizer, [answer])) for label in labels))


@pytest.mark.parametrize("file", ["reward_func.py", "agent_func.py"])
def test_a_stuck_check_costs_its_sample_not_the_rollout(stall_plugin, tmp_path, monkeypatch, tokenizer, passing,
                                                        file):
    monkeypatch.setenv(CONFIG_ENV, write_config(tmp_path / "planshape.json", schedule="stage1",
                                                sample_budget_s=BUDGET))
    path = str(EXAMPLES / file)
    executor = SingleTurnAgentExecutor(path) if file == "reward_func.py" else _load_agent_executor(path)
    answer, query = passing
    labels = [json.dumps(q) for q in (query, _with_word(query, "SLEEP"), _with_word(query, "SPIN"), query)]
    asyncio.run(_batch(executor, tokenizer, answer, labels[:1]))  # warm: the store opens, imports are done
    start = time.perf_counter()
    out = asyncio.run(_batch(executor, tokenizer, answer, labels))
    took = time.perf_counter() - start
    # wall clock (a timeout): the stuck samples run side by side in OpenRLHF's threads, so one budget, plus 1.5 s
    # for the other samples and a loaded machine; unstopped, the probe would hold the batch for 60 s
    assert took < BUDGET + 1.5, took
    for stuck in out[1:3]:
        assert float(stuck["reward"]) == 0.0 and stuck["extra_logs"]["planshape/failure/timeout"] == 1.0
    assert [float(o["reward"]) for o in (out[0], out[3])] == [5.0, 5.0]  # stage 1, all checks pass: as without
    assert out[0]["extra_logs"]["planshape/failure/timeout"] == 0.0
    assert "planshape/failure/commonsense:stall_probe" in out[0]["extra_logs"]  # the probe ran as a check
