"""VERL's real ToolAgentLoop, driven by a scripted stand-in for the LLM server and the in-test tokenizer,
executing planshape's tools; its outputs are scored by the planshape reward manager and fed to planpo."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import asyncio
import re

import numpy as np
import torch
from planshape.adapters.verl.config import run_shaper
from verl import DataProto
from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
from verl.tools.tool_registry import load_all_tools
from verl.trainer.ppo.ray_trainer import compute_advantage
from verl.trainer.ppo.reward import load_reward_manager
from verl.utils.skip.skip_manager import SkipManager
from verl.workers.rollout.replica import TokenOutput

from .conftest import EXAMPLES
from .helpers import reward_row, tool_call, verl_config

BLOCK_OVERRIDES = ["+algorithm.planpo.config=" + str(EXAMPLES / "planshape-8b.yaml"),
                   "+algorithm.planpo.database=sample"]


class ScriptedServer:
    """Stands in for VERL's LLM server client: each request gets the next scripted assistant message of its
    trajectory, encoded and ended with EOS, as vLLM would return it. It records every prompt it saw."""

    def __init__(self, tokenizer, scripts: dict[str, list[str]]):
        self.tokenizer, self.scripts, self.prompts = tokenizer, {k: list(v) for k, v in scripts.items()}, []

    async def generate(self, request_id, prompt_ids, sampling_params, **multimodal):
        text = self.tokenizer.decode(prompt_ids)
        self.prompts.append(text)
        key = re.search(r"TRAJECTORY (\w+)", text).group(1)
        ids = self.tokenizer.encode(self.scripts[key].pop(0), add_special_tokens=False)
        return TokenOutput(token_ids=ids + [self.tokenizer.eos_token_id], stop_reason="completed")


def _scripts(rows: list[dict]) -> dict[str, list[str]]:
    q = rows[0]["query"]
    flights = tool_call("search_flights", {"origin": q["org"], "destination": q["dest"], "date": q["date"][0]})
    hotels = tool_call("search_accommodations", {"city": q["dest"]})
    food = tool_call("search_restaurants", {"city": q["dest"]})
    bad = tool_call("search_flights", {"origin": "Atlantis", "destination": q["dest"], "date": q["date"][0]})
    final = [r["text"][r["text"].find("<answer>"):] if "<answer>" in r["text"] else "I give up." for r in rows]
    return {"t0": [flights, hotels, food, final[0]],  # passes after 3 tool rounds
            "t1": [flights, final[1]],                 # passes after 1 tool round: shorter, so more A^S credit
            "t2": [bad, hotels, final[2]],             # a repeated restaurant: partial credit, not a success
            "t3": [flights, hotels, final[3]]}         # no answer


@pytest.fixture(scope="module")
def rollouts(tokenizer, sample_rows):
    with pytest.MonkeyPatch.context() as env:  # what the tool YAML resolves in an agent-loop worker
        env.setenv("PLANSHAPE_CONFIG", str(EXAMPLES / "planshape-8b.yaml"))
        env.setenv("PLANSHAPE_DATABASE", "sample")
        return _rollouts(tokenizer, sample_rows)


def _rollouts(tokenizer, sample_rows):
    cfg = verl_config([*BLOCK_OVERRIDES, "reward.reward_manager.name=planshape",
                       "actor_rollout_ref.rollout.multi_turn.max_assistant_turns=30",
                       "actor_rollout_ref.rollout.multi_turn.max_tool_response_length=8192",
                       "data.max_prompt_length=4096", "data.max_response_length=16384",
                       f"actor_rollout_ref.rollout.multi_turn.tool_config_path={EXAMPLES / 'tools.yaml'}"])
    tools = load_all_tools(cfg.actor_rollout_ref.rollout.multi_turn.tool_config_path, None)
    server = ScriptedServer(tokenizer, _scripts(sample_rows[:4]))
    shaper = run_shaper(cfg.algorithm.planpo)

    async def run_all():
        loop = ToolAgentLoop(trainer_config=DictConfigWrap(cfg), server_manager=server, tokenizer=tokenizer,
                             processor=None, dataset_cls=None, data_config=DictConfigWrap(cfg.data),
                             tools=ToolListWrap(tools))
        outs = []
        for key in ("t0", "t1", "t2", "t3"):
            messages = shaper.messages(sample_rows[0]["query"])
            messages[-1]["content"] += f"\n(TRAJECTORY {key})"
            outs.append(await loop.run({"temperature": 1.0}, raw_prompt=messages, extra_info={"index": 0}))
        return outs

    return cfg, server, asyncio.run(run_all())


def test_the_loop_executes_planshape_tools(rollouts, tokenizer):
    _, server, outs = rollouts
    assert [o.num_turns for o in outs] == [8, 4, 6, 6]  # prompt + assistant turns + tool rounds
    for out in outs:
        spans = np.diff(np.concatenate([[0], out.response_mask, [0]]))
        assert (spans == 1).sum() == out.num_turns // 2  # assistant turns = runs of 1s in response_mask
    text = tokenizer.decode(outs[0].response_ids)
    assert "flight_number,price" in text and "name,city,room_type" in text and "cuisines" in text
    assert "no city named 'Atlantis'" in tokenizer.decode(outs[2].response_ids)
    assert "search_flights" in server.prompts[0]  # the tool schemas reached the chat template


def test_reward_and_planpo_on_the_loop_batch(rollouts, tokenizer, sample_rows):
    cfg, _, outs = rollouts
    manager = load_reward_manager(cfg, tokenizer)
    truth = {"style": "rule", "ground_truth": __import__("json").dumps(sample_rows[0]["query"])}
    scores = []
    for out in outs:
        data = reward_row(tokenizer, out.prompt_ids, out.response_ids, {
            "data_source": "travelplanner", "reward_model": truth, "extra_info": {"index": 0}, "global_steps": 1,
            "__num_turns__": out.num_turns, "tool_extra_fields": out.extra_fields})
        scores.append(manager.loop.run_until_complete(manager.run_single(data))["reward_score"])
    assert scores == [5.0, 5.0, 2.875, 0.0]

    # the trainer's batch: responses right-padded, the score on the last response token, one uid per prompt
    length = max(len(o.response_ids) for o in outs)
    mask = torch.zeros(len(outs), length, dtype=torch.int64)
    rewards = torch.zeros(len(outs), length)
    for i, out in enumerate(outs):
        mask[i, : len(out.response_mask)] = torch.tensor(out.response_mask)
        rewards[i, len(out.response_ids) - 1] = scores[i]
    batch = DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                                non_tensors={"uid": np.array(["q0"] * 4, dtype=object)})
    SkipManager.set_step(1)
    try:
        adv = compute_advantage(batch, adv_estimator="planpo", config=cfg.algorithm).batch["advantages"]
    finally:
        SkipManager.set_step(-1)
    expected = run_shaper(cfg.algorithm.planpo).advantages(np.array(scores), mask, ["q0"] * 4, 0)
    assert torch.equal(adv, expected.tokens)
    assert torch.all(adv[mask == 0] == 0)
    first_turn = lambda i: adv[i, int(mask[i].argmax())]  # noqa: E731
    assert first_turn(0) > 0 and first_turn(1) > first_turn(0)  # both succeed; the shorter one gets more
    assert first_turn(2) < 0 and first_turn(3) < 0
