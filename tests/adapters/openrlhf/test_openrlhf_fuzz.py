"""Seeded fuzz of the OpenRLHF entry points as OpenRLHF calls them: the reward file's
``reward_func(queries, prompts, labels)`` (lists, one sample per call from the executor) and the agent's
``step(states)`` (``action_text`` from the model, ``label`` from the dataset). Model text never raises; a
trainer-side field either works or raises a ``ValueError`` naming it (the agent and reward turn a bad label into
a zero reward with the ``error`` category instead, since an exception there ends the rollout actor)."""

from __future__ import annotations

import asyncio
import json
import random

from conftest import EXAMPLES
from openrlhf.trainer.ray.vllm_engine import _load_agent_executor
from openrlhf.utils.agent import SingleTurnAgentExecutor
from planshape.adapters.openrlhf import CONFIG_ENV
from planshape.shaping.facade import parse_tool_calls

from tests.adapter_fuzz import CASES, label, model_text, must_not_raise, outcome

PROMPT = "<|im_start|>user\nPlan my trip.<|im_end|>\n<|im_start|>assistant\n"


def test_reward_func_under_fuzzed_text_and_labels(stage1_config, monkeypatch, passing):
    monkeypatch.setenv(CONFIG_ENV, stage1_config)
    reward_func = SingleTurnAgentExecutor(str(EXAMPLES / "reward_func.py")).reward_func
    answer, query = passing
    rng = random.Random(40)
    failures = []
    for case in range(CASES):
        n = rng.randrange(1, 4)
        texts = [PROMPT + model_text(rng, answer) for _ in range(n)]

        def model_only() -> None:
            out = reward_func(texts, [PROMPT] * n, [json.dumps(query)] * n)
            assert len(out["rewards"]) == n and set(out) == {"rewards", "scores", "extra_logs"}

        if (problem := must_not_raise(model_only)) is not None:
            failures.append(("model", case, problem))
        labels = [label(rng, query) for _ in range(n)]
        shapes = rng.choice([(texts, [PROMPT] * n, labels), (texts, [PROMPT] * n, labels[:-1]),
                             (texts, [PROMPT] * (n + 1), labels), ([None] * n, [5] * n, labels)])

        def trainer_side() -> None:
            out = reward_func(*shapes)
            assert len(out["rewards"]) == len(shapes[0])  # one reward per query, or a clear error

        if (problem := outcome(trainer_side)) is not None:
            failures.append(("row", case, [len(s) for s in shapes], problem))
    assert failures == [], failures[:10]


def test_the_agent_step_under_fuzzed_turns(stage1_config, monkeypatch, passing):
    monkeypatch.setenv(CONFIG_ENV, stage1_config)
    executor = _load_agent_executor(str(EXAMPLES / "agent_func.py"))
    answer, query = passing
    rng = random.Random(41)
    failures = []
    for case in range(CASES):
        agent = executor.agent_instance_cls()
        states = {"observation_text": PROMPT, "action_text": model_text(rng, answer),
                  "label": rng.choice([json.dumps(query), label(rng, query)]), "sampling_params": None}

        def step() -> None:
            out = asyncio.run(agent.step(states))
            assert {"rewards", "environment_feedback", "done", "extra_logs"} <= set(out)

        if (problem := must_not_raise(step)) is not None:
            failures.append((case, states["action_text"][:60], problem))
    assert failures == [], failures[:10]


def test_a_deeply_nested_tool_call_is_answered_not_raised():
    calls = parse_tool_calls("<tool_call>" + "[" * 100_000 + "</tool_call>", 8)
    assert [c.error for c in calls] == ["the tool call is longer than 4096 characters"]  # answered with that error
