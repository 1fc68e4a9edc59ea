"""The bad-call checks (``bad_calls``) on the standards of the core venv: the facade's ``Episode`` (what OpenEnv and
TRL's environment class step), ``planshape rollout`` against a scripted OpenAI-compatible server, and the tool
routes NeMo Gym's agent calls on ``planshape serve`` (a real NeMo Gym run: tests/nemo_gym)."""

from __future__ import annotations

import json

import pytest
from planshape.shaping.facade import Episode, Shaper, query_json

from .bad_calls import ANSWER, BAD, CAP, STUCK, check_answers, check_counted, check_stuck


@pytest.fixture(scope="module")
def shaper(shared_dir):
    return Shaper.from_mapping({"database": str(shared_dir / "database"), "total_steps": 1})


def test_the_episode(shaper, train_records):
    episode = Episode(shaper)
    episode.reset(train_records[0])
    check_answers([episode.call(name, arguments) for _, name, arguments in BAD], shaper.tools())
    assert episode.finish(ANSWER).failure == "no_answer"
    check_counted(episode.turns)
    episode.reset(train_records[0])  # the same calls in one assistant turn: one turn, answered in order
    check_answers(episode.turn([_Call(name, arguments) for _, name, arguments in BAD]), shaper.tools())
    assert episode.turns == 1
    stuck = Episode(shaper, max_turns=CAP)
    stuck.reset(train_records[0])
    while not stuck.done:
        stuck.call(STUCK[1], STUCK[2])
    check_stuck(stuck.score.failure, stuck.score.reason, stuck.turns)


class _Call:
    def __init__(self, name: str, arguments: str):
        self.name, self.arguments = name, arguments


def test_planshape_rollout(shaper, train_records, shared_dir, tmp_path):
    """Native tool calls (the OpenAI protocol carries the arguments as text, so every kind reaches the loop)."""
    pytest.importorskip("aiohttp")
    from planshape.shaping.cli import main

    from ..rollout.scripted_model import model
    from ..rollout.scripted_server import ScriptedServer

    record = train_records[0]
    rows = [{**record, "query": f"{record['query']} [bad calls]"}, {**record, "query": f"{record['query']} [stuck]"}]
    turns = {rows[0]["query"]: [{"tool_calls": [(name, arguments)]} for _, name, arguments in BAD] +
             [{"content": ANSWER}],
             rows[1]["query"]: [{"tool_calls": [(STUCK[1], STUCK[2])]}]}  # the last action repeats: stuck
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with ScriptedServer(model(turns)) as server:
        assert main(["rollout", str(queries), "--base-url", server.base_url, "--model", "scripted", "-o",
                     str(tmp_path / "run"), "--database", str(shared_dir / "database"), "--max-turns", str(CAP + 1),
                     "--no-progress"]) == 0
    bad, stuck = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    check_answers([m["content"] for m in bad["transcript"] if m["role"] == "tool"], shaper.tools())
    check_counted(bad["turns"])
    assert bad["status"] == "answered" and bad["score"]["failure"] == "no_answer"
    check_stuck(stuck["score"]["failure"], stuck["score"]["reason"], stuck["turns"], CAP + 1)
    assert stuck["status"] == "max_turns"


def test_nemo_gym_tool_routes(shaper, train_records, shared_dir, tmp_path):
    """What NeMo Gym's agent posts for each call (the body: the arguments as the model wrote them) within a
    session; a transcript past the turn cap verifies as unanswered, with the cap as its reason."""
    pytest.importorskip("aiohttp")
    from tests.serve.server import Server, nemo_response, post

    srv = Server({"database": str(shared_dir / "database")}, tmp_path / "srv", "--workers", "1",
                 "--max-turns", str(CAP))
    try:
        cookie = _seed(srv.url)
        read = [_post_text(srv.url + f"/{name}", arguments, cookie) for _, name, arguments in BAD]
        check_answers(read, shaper.tools())
        record = train_records[0]
        transcript = nemo_response(None)
        calls = [{"type": "function_call", "call_id": str(i), "name": STUCK[1], "arguments": STUCK[2]}
                 for i in range(CAP)]
        outputs = [{"type": "function_call_output", "call_id": str(i), "output": read[0]} for i in range(CAP)]
        transcript["output"] = [item for pair in zip(calls, outputs, strict=True) for item in pair] + \
            transcript["output"]
        status, reply = post(srv.url + "/verify", {**json.loads(query_json(record)),
                                                   "responses_create_params": {"input": []}, "response": transcript})
        assert status == 200
        check_stuck(reply["failure"], reply["reason"], None)
        assert not reply["mask_sample"]  # the model's doing: trained on as 0, not masked
    finally:
        srv.stop()


def _seed(url: str) -> str:
    import urllib.request

    request = urllib.request.Request(url + "/seed_session", b"{}", {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return reply.headers["Set-Cookie"].split(";")[0]


def _post_text(url: str, body: str, cookie: str) -> str:
    import urllib.request

    request = urllib.request.Request(url, body.encode(), {"Content-Type": "application/json", "Cookie": cookie})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return reply.read().decode()
