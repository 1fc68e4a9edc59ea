"""The agent file, loaded by OpenRLHF's own ``_load_agent_executor`` and run by its ``MultiTurnAgentExecutor``
against a scripted engine: tools answer from the sandbox (the core's tool-call parser and turn limits), the final
turn is scored, and the logs carry the same keys at every step."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import EXAMPLES
from openrlhf.trainer.ppo_utils.samples_generator import SamplesGenerator
from openrlhf.trainer.ray.vllm_engine import _load_agent_executor
from openrlhf_harness import ScriptedEngine, sampling_params
from planshape.adapters.openrlhf import CONFIG_ENV
from planshape.shaping.advantages.turns import turn_spans
from planshape.shaping.facade import Shaper, TextCall, parse_tool_calls

PROMPT = "<|im_start|>user\nPlan my trip.<|im_end|>\n<|im_start|>assistant\n"


def call(name: str, **arguments) -> str:
    return f"Let me look.\n<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


FLIGHTS = call("search_flights", origin="Harborview", destination="Lindenfield", date="2022-03-10")
HOTELS = call("search_accommodations", city="Lindenfield")


@pytest.fixture
def executor(stage1_config, monkeypatch):
    monkeypatch.setenv(CONFIG_ENV, stage1_config)
    return _load_agent_executor(str(EXAMPLES / "agent_func.py"))


def episode(executor, tokenizer, turns, query, max_length=200_000) -> tuple[dict, ScriptedEngine]:
    engine = ScriptedEngine(tokenizer, turns)
    out = asyncio.run(executor.execute(PROMPT, json.dumps(query), sampling_params(), max_length, tokenizer, engine))
    return out, engine


def test_a_scripted_episode_gets_tool_feedback_and_the_staged_reward(executor, tokenizer, stage1_config, passing):
    answer, query = passing
    shaper = Shaper.from_mapping(stage1_config)
    out, engine = episode(executor, tokenizer, [FLIGHTS, HOTELS, answer], query)
    assert engine.calls == 3 and len(out["action_ranges"]) == 3
    assert out["reward"] == 5.0 and float(out["scores"]) == 1.0
    logs = out["extra_logs"]
    assert set(logs) == set(shaper.carried_names)
    assert logs == pytest.approx(shaper.carried(shaper.score(answer, query, 0)))
    # The environment's feedback is the sandbox's own answer, in the tool turn, between the assistant turns.
    text = tokenizer.decode(out["observation_tokens"])
    flights = shaper.tools().call("search_flights", {"origin": "Harborview", "destination": "Lindenfield",
                                                     "date": "2022-03-10"})
    assert f"<tool_response>\n{flights}\n</tool_response>" in text and "F9000101" in flights
    first_end = out["action_ranges"][0][1]
    assert tokenizer.decode(out["observation_tokens"][first_end:]).startswith("\n<|im_start|>user\n<tool_response>")
    # OpenRLHF's experience: one run of action tokens per assistant turn, tool tokens masked out.
    exp = SamplesGenerator._process_response_into_experience(None, out, max_len=200_000)
    assert turn_spans(exp.action_mask[:1]).turns.tolist() == [3]
    assert float(exp.info["planshape/pass"][0]) == 1.0


def test_a_partial_plan_gets_partial_credit(executor, tokenizer, over_budget, stage1_config):
    answer, query = over_budget
    out, _ = episode(executor, tokenizer, [HOTELS, answer], query)
    expected = Shaper.from_mapping(stage1_config).score(answer, query, 0)
    assert out["reward"] == pytest.approx(expected.reward) and 0 < out["reward"] < 5
    assert out["extra_logs"]["planshape/failure/hard:valid_cost"] == 1.0 and len(out["action_ranges"]) == 2


def test_the_agent_ends_the_episode_at_max_turns(executor, tokenizer, passing):
    out, engine = episode(executor, tokenizer, [FLIGHTS] * 40, passing[1])
    text = tokenizer.decode(out["observation_tokens"])
    assert engine.calls == 30 and len(out["action_ranges"]) == 30 and text.count("<tool_response>") == 29
    assert out["reward"] == 0.0 and out["extra_logs"]["planshape/failure/no_answer"] == 1.0


def test_calls_past_the_turn_limit_are_answered_with_an_error(executor, tokenizer, passing):
    """Three calls in one turn with the example's ``max_calls_per_turn=1``: one runs, two are told they were not."""
    answer, query = passing
    out, engine = episode(executor, tokenizer, ["".join([HOTELS] * 3), answer], query)
    text = tokenizer.decode(out["observation_tokens"])
    assert text.count("<tool_response>") == 3 and text.count("at most 1 tool calls per turn") == 2
    assert engine.calls == 2 and out["reward"] == 5.0


def test_malformed_calls_get_an_error_back_and_the_episode_goes_on(executor, tokenizer, passing):
    answer, query = passing
    turns = ["<tool_call>{not json</tool_call>", call("book_hotel", city="X"), call("search_flights", origin="A"),
             answer]
    out, engine = episode(executor, tokenizer, turns, query)
    text = tokenizer.decode(out["observation_tokens"])
    assert text.count("<tool_response>\nError: ") == 3
    assert "Error: the tool call is not valid JSON (Expecting property name" in text  # the real reason, as in native
    assert engine.calls == 4 and out["reward"] == 5.0


def test_a_budget_cut_episode_keeps_the_same_log_keys(executor, tokenizer, passing, stage1_config):
    """OpenRLHF stops at ``max_length`` without a final step: the last step's logs are what survive."""
    out, _ = episode(executor, tokenizer, [FLIGHTS] * 40, passing[1], max_length=2_000)
    names = set(Shaper.from_mapping(stage1_config).carried_names)
    assert set(out["extra_logs"]) == names and out["reward"] == 0.0


def test_each_trajectory_has_its_own_environment(executor, tokenizer, passing):
    answer, query = passing

    async def both():
        return await asyncio.gather(
            executor.execute(PROMPT, json.dumps(query), sampling_params(), 200_000, tokenizer,
                             ScriptedEngine(tokenizer, [FLIGHTS, FLIGHTS, answer])),
            executor.execute(PROMPT, json.dumps(query), sampling_params(), 200_000, tokenizer,
                             ScriptedEngine(tokenizer, [answer])))

    long, short = asyncio.run(both())
    assert (len(long["action_ranges"]), len(short["action_ranges"])) == (3, 1)


@pytest.mark.parametrize("text,expected", [
    ("no call", []),
    ('<tool_call>{"name": "calculator", "arguments": {"expression": "1+1"}}</tool_call>',
     [TextCall("calculator", {"expression": "1+1"})]),
    ("<tool_call>[1, 2]</tool_call>",
     [TextCall(error='a tool call is a JSON object {"name": ..., "arguments": {...}}, got an array')]),
    ("<tool_call>" * 3, []),
])
def test_tool_call_parsing_never_raises(text, expected):
    assert parse_tool_calls(text, 8) == expected
