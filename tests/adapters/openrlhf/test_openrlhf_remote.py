"""OpenRLHF's own HTTP reward path (``SingleTurnAgentExecutor`` with ``--reward.remote_url URL,URL``, 0.11.2's
rotation) against a real ``planshape serve`` on 127.0.0.1: the rewards, scores and every metric equal the
in-process reward file's, and OpenRLHF's ``SamplesGenerator`` stacks the served samples into one experience."""

from __future__ import annotations

import asyncio
import json
import os
import secrets

import pytest
from openrlhf.trainer.ppo_utils.experience import Experience
from openrlhf.trainer.ppo_utils.samples_generator import SamplesGenerator
from openrlhf.utils.agent import SingleTurnAgentExecutor
from openrlhf_harness import ScriptedEngine, sampling_params
from planshape.shaping.facade import Shaper

from tests.serve.server import Server

PROMPT = "<|im_start|>user\nPlan my trip.<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("served")
    token_file = folder / "token"
    token = secrets.token_urlsafe(24)
    token_file.write_text(token)
    os.chmod(token_file, 0o600)
    config = {"database": "sample", "schedule": "stage1", "total_steps": 10}
    srv = Server(config, folder, "--workers", "2", "--token-file", str(token_file), "--log-requests")  # a 401's line
    yield srv, token, Shaper.from_mapping(config)
    srv.stop()


def rollout(executor, tokenizer, answer: str, label) -> dict:
    return asyncio.run(executor.execute(PROMPT, label, sampling_params(), 4096, tokenizer,
                                        ScriptedEngine(tokenizer, [answer])))


def test_openrlhf_scores_over_http_as_in_process(served, tokenizer, passing, over_budget):
    srv, token, shaper = served
    url = f"{srv.url}/t/{token}/get_reward"
    executor = SingleTurnAgentExecutor([url, url])  # what --reward.remote_url URL,URL becomes (train_ppo_ray.py)
    assert executor.reward_func is None  # the HTTP path, not a reward file
    cases = [passing, over_budget, ("no answer here", passing[1]), ("<answer>[]</answer>", {"query": "x"})]
    outs = [rollout(executor, tokenizer, answer, json.dumps(query)) for answer, query in cases]
    for out, (answer, query) in zip(outs, cases, strict=True):
        try:
            expected = shaper.score(answer, query, 0)
        except ValueError:  # not a query: the served sample scores 0 under "error", as the reward file's does
            expected = shaper.unscored(0, "error")
        assert out["reward"] == [expected.reward] and out["scores"] == [float(expected.success)]
        assert out["extra_logs"] == {k: [v] for k, v in expected.metrics().items()}
    assert outs[0]["reward"] == [5.0] and 0 < outs[1]["reward"][0] < 5.0 and outs[3]["reward"] == [0.0]
    samples = [SamplesGenerator._process_response_into_experience(None, o, max_len=4096) for o in outs]
    batch = Experience.concat_experiences(samples, tokenizer.pad_token_id)
    # A reply's lists become (1, 1) tensors per sample, as with OpenRLHF's own serve_rm: its advantage step
    # reshapes the stacked rewards to (prompts, n_samples), so only the count per key matters.
    assert batch.rewards.flatten().tolist() == [o["reward"][0] for o in outs]
    assert all(v.numel() == 4 for v in batch.info.values())
    assert batch.info["planshape/failure/no_answer"].flatten().tolist() == [0.0, 0.0, 1.0, 0.0]


def test_without_the_token_openrlhf_gets_no_reward_and_says_why(served, tokenizer, passing):
    """A 401 is retried and then logged by OpenRLHF, the reward left None: the misconfiguration is visible at
    once (a wrong URL fails the same way), never a silently wrong reward."""
    srv, _, _ = served
    executor = SingleTurnAgentExecutor([srv.url + "/get_reward"])
    out = rollout(executor, tokenizer, passing[0], json.dumps(passing[1]))  # 5 tries, 1 s apart
    assert out["reward"] is None
    assert "get_reward -> 401" in srv.log()
