"""Each wire format driven the way its trainer's client drives it (concurrent aiohttp posts of bare JSON): the
gold answers score the schedule's maximum, and every score equals the in-process facade's for the same texts,
queries and step."""

from __future__ import annotations

import asyncio
import json
import random

import aiohttp
import pytest
from planshape.shaping.facade import read_query

from tests.adapter_fuzz import model_text
from tests.serve.server import nemo_response, nemo_row, openrlhf_payloads, post, slime_payload


def _fields(score) -> tuple:
    return score.reward, float(score.success), score.failure, score.components


async def _post_all(url: str, payloads: list, headers: dict | None = None) -> list[tuple[int, dict]]:
    """Concurrent posts over one session (as slime's shared session; OpenRLHF opens one per call)."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64),
                                     timeout=aiohttp.ClientTimeout(total=180)) as session:
        async def one(payload):
            async with session.post(url, json=payload, headers=headers) as reply:
                return reply.status, await reply.json()

        return await asyncio.gather(*(one(p) for p in payloads))


@pytest.mark.parametrize("release", ["0.11.0", "0.11.2"])
def test_openrlhf_one_sample_per_request_over_two_urls(server, gold, shaper, release):
    """OpenRLHF with ``--reward.remote_url URL,URL``: one sample per request; 0.11.0 also posts an empty batch
    to the second URL, which must get a 200 (a non-2xx from any URL loses the sample)."""
    payloads = [p for i in range(len(gold.records))
                for p in openrlhf_payloads(gold.query(i), gold.prompts[i], gold.labels[i], 2, release)]
    assert len(payloads) == (90 if release == "0.11.0" else 45)
    replies = asyncio.run(_post_all(server.url + "/get_reward", payloads))
    assert all(status == 200 for status, _ in replies)
    full = [r for p, (_, r) in zip(payloads, replies, strict=True) if p["query"]]
    empty = [r for p, (_, r) in zip(payloads, replies, strict=True) if not p["query"]]
    expected = shaper.score_batch([gold.answers[i] + "<|im_end|>" for i in range(45)], gold.labels, 0)
    assert [r["rewards"] for r in full] == [[shaper.max_reward(0)]] * 45 == [[s.reward] for s in expected]
    assert [r["scores"] for r in full] == [[1.0]] * 45
    for reply, score in zip(full, expected, strict=True):
        assert list(reply["extra_logs"]) == list(shaper.metric_names)  # the same keys, in every reply
        assert reply["extra_logs"] == {k: [v] for k, v in score.metrics().items()}
    for reply in empty:
        assert reply == {"rewards": [], "scores": [], "extra_logs": {k: [] for k in shaper.metric_names}}


def test_openrlhf_batch_at_a_later_stage_and_fuzzed_outputs(server, gold, shaper):
    """A batch (as OpenRLHF before 0.11 and planshape's clients send) with the step in the body: scored at that
    step's weights; fuzzed model outputs score exactly as in process."""
    rng = random.Random(0)
    texts = [model_text(rng, gold.answers[i % 45]) for i in range(60)]
    texts = [t for t in texts if len(json.dumps(t)) < 300_000][:40]
    labels = [gold.labels[i % 45] for i in range(len(texts))]
    for step in (0, 150, 450):
        status, reply = post(server.url + "/get_reward", {
            "query": [gold.prompts[i % 45] + t for i, t in enumerate(texts)],
            "prompts": [gold.prompts[i % 45] for i in range(len(texts))], "labels": labels, "step": step})
        assert status == 200
        expected = shaper.score_batch(texts, labels, step)
        assert reply["rewards"] == [s.reward for s in expected]
        assert reply["extra_logs"] == shaper.metric_columns(expected)
    assert len({s.failure for s in expected}) > 3  # the fuzz reached several failure kinds
    gold_at = post(server.url + "/get_reward", {"query": [gold.query(0)], "prompts": [gold.prompts[0]],
                                                "labels": [gold.labels[0]], "step": 450})[1]
    assert gold_at["rewards"] == [shaper.max_reward(450)] and shaper.max_reward(450) != shaper.max_reward(0)


def test_slime_per_sample_posts(server, gold, shaper):
    """slime's ``remote_rm`` (``--rm-url URL``, read with ``--reward-key reward``): prompt, response, label;
    the label as the dataset column was read (JSON text) or, for a JSON object column, a dict."""
    payloads = [slime_payload(gold.prompts[i], gold.answers[i], gold.labels[i] if i % 2 else json.loads(gold.labels[i]))
                for i in range(45)]
    payloads.append(slime_payload(gold.messages[0], "no plan", gold.labels[0]))  # a prompt given as messages
    replies = asyncio.run(_post_all(server.url + "/reward", payloads))
    replies += asyncio.run(_post_all(server.url + "/", payloads[:2]))  # --rm-url http://host:port
    expected = shaper.score_batch([p["response"] for p in payloads] + [gold.answers[0], gold.answers[1]],
                                  [gold.labels[i] for i in range(45)] + [gold.labels[0]] * 2 + [gold.labels[1]], 0)
    assert all(status == 200 for status, _ in replies)
    for (_, reply), score in zip(replies, expected, strict=True):
        assert reply["reward"] == score.reward and reply["components"] == score.components
        assert reply["failure"] == score.failure and reply["metrics"] == score.metrics()
    assert [r["reward"] for _, r in replies[:45]] == [shaper.max_reward(0)] * 45
    assert replies[45][1]["failure"] == "no_answer" and replies[45][1]["reason"]


def test_nemo_gym_seed_then_verify(server, gold, shaper):
    """NeMo Gym's simple agent: /seed_session with the run request, then /verify with the row and the final
    Responses object; the reply echoes both (the agent validates it) beside the reward."""
    rows = [nemo_row(gold.records[i], gold.messages[i], i) for i in range(45)]
    seeds = asyncio.run(_post_all(server.url + "/seed_session", rows))
    assert all(s == (200, {}) for s in seeds)
    requests = [{**row, "response": nemo_response(gold.answers[i])} for i, row in enumerate(rows)]
    requests.append({**rows[0], "response": nemo_response(gold.answers[0], tool_call_last=True)})
    requests.append({**rows[1], "response": nemo_response(None)})
    requests.append({**rows[2], "label": gold.labels[2], "response": nemo_response(gold.answers[2])})
    replies = asyncio.run(_post_all(server.url + "/verify", requests))
    assert all(status == 200 for status, _ in replies)
    expected = shaper.score_batch(gold.answers, gold.labels, 0)
    for request, (_, reply), score in zip(requests, replies, expected, strict=False):
        assert reply["reward"] == score.reward == shaper.max_reward(0)
        assert reply["responses_create_params"] == request["responses_create_params"]
        assert reply["response"] == request["response"] and reply["_ng_task_index"] == request["_ng_task_index"]
        assert reply["reward_components"] == score.components and reply["planshape/reward"] == score.reward
    for _, reply in replies[45:47]:  # no final assistant message: no answer, reward 0
        assert reply["reward"] == 0.0 and reply["failure"] == "no_answer"
    assert replies[47][1]["reward"] == shaper.max_reward(0)


def test_a_step_header_and_what_a_sample_cannot_fail(server, gold, shaper):
    """``X-Planshape-Step`` for clients that cannot change the body; a missing answer, broken answer JSON and a
    label that is not a query are 200s with a failing score (a 4xx would lose OpenRLHF's sample)."""
    status, reply = post(server.url + "/reward", slime_payload("p", gold.answers[3], gold.labels[3]),
                         headers={"X-Planshape-Step": "150"})
    assert status == 200 and reply["reward"] == shaper.max_reward(150) and reply["step"] == 150
    cases = [("no answer at all", gold.labels[0], "no_answer"),
             ("<answer>[{\"days\": 1,</answer>", gold.labels[0], "schema"),
             (gold.answers[0], "not json", "error"),
             (gold.answers[0], {"query": "a trip", "days": "three"}, "error"),
             (gold.answers[0], None, "error"),
             (gold.answers[0], 7, "error")]
    status, reply = post(server.url + "/get_reward", {"query": [c[0] for c in cases], "prompts": [""] * len(cases),
                                                      "labels": [c[1] for c in cases]})
    assert status == 200 and reply["rewards"] == [0.0] * len(cases)
    assert [reply["extra_logs"][f"planshape/failure/{c[2]}"][i] for i, c in enumerate(cases)] == [1.0] * len(cases)
    assert read_query(gold.labels[0])  # the good label reads, so the failures above are the inputs'
