"""Every malformed request is a 4xx JSON error naming the problem, never a 500 or a traceback, and the server
goes on serving correct scores after each one."""

from __future__ import annotations

import http.client
import json

import pytest

from tests.adapter_fuzz import deep
from tests.serve.conftest import MAX_BODY_MB, MAX_SAMPLES
from tests.serve.server import get, post, request

JSON_HEADERS = {"Content-Type": "application/json"}


def _one(gold, **changes):
    return {"query": [gold.query(0)], "prompts": [gold.prompts[0]], "labels": [gold.labels[0]], **changes}


def _cases(gold) -> list[tuple[str, str, bytes | None, str, dict, int, str]]:
    """(what, route, body, method, headers, status, a word the error must hold)."""
    body = json.dumps
    nemo = {"responses_create_params": {"input": "q"}, "response": {"output": []}, "label": gold.labels[0]}
    n = MAX_SAMPLES + 1
    return [
        ("not JSON", "/get_reward", b"{query: [", "POST", JSON_HEADERS, 400, "not JSON"),
        ("no body", "/get_reward", b"", "POST", JSON_HEADERS, 400, "no body"),
        ("not UTF-8", "/get_reward", b'{"query": ["\xff\xfe"]}', "POST", JSON_HEADERS, 400, "UTF-8"),
        ("an array, not an object", "/get_reward", body([1, 2]).encode(), "POST", JSON_HEADERS, 400, "JSON object"),
        ("nested past the parser", "/get_reward", b"[" * 200_000 + b"]" * 200_000, "POST", JSON_HEADERS, 400,
         "nests"),
        ("labels missing", "/get_reward", body({"query": ["x"], "prompts": ["x"]}).encode(), "POST", {}, 400,
         "labels"),
        ("query a string", "/get_reward", body(_one(gold, query=gold.query(0))).encode(), "POST", {}, 400,
         "must be a list"),
        ("lengths differ", "/get_reward", body(_one(gold, prompts=[])).encode(), "POST", {}, 400,
         "one item per sample"),
        ("a query that is a number", "/get_reward", body(_one(gold, query=[5])).encode(), "POST", {}, 400,
         "query[0]"),
        ("too many samples", "/get_reward", body({"query": ["x"] * n, "prompts": ["x"] * n,
                                                  "labels": ["x"] * n}).encode(), "POST", {}, 413, "at most"),
        ("a body over the limit", "/get_reward", b" " * (MAX_BODY_MB * 2**20 + 10), "POST", JSON_HEADERS, 413,
         "at most"),
        ("a negative step", "/get_reward", body(_one(gold, step=-1)).encode(), "POST", {}, 400, "step"),
        ("a fractional step", "/reward", body({"response": "x", "label": "x", "step": 2.5}).encode(), "POST", {},
         400, "step"),
        ("a step that is text", "/get_reward", body(_one(gold, step="3")).encode(), "POST", {}, 400, "step"),
        ("a bad step header", "/get_reward", body(_one(gold)).encode(), "POST", {"X-Planshape-Step": "soon"}, 400,
         "X-Planshape-Step"),
        ("GET on a POST route", "/get_reward", None, "GET", {}, 405, "POST"),
        ("POST on a GET route", "/metrics", b"{}", "POST", {}, 405, "GET"),
        ("an unknown route", "/get_rewards", body(_one(gold)).encode(), "POST", {}, 404, "/get_reward"),
        ("slime without a response", "/reward", body({"prompt": "p", "label": "x"}).encode(), "POST", {}, 400,
         "response"),
        ("slime response not text", "/reward", body({"prompt": "p", "response": ["x"], "label": "x"}).encode(),
         "POST", {}, 400, "response"),
        ("slime body a string", "/", body("reward me").encode(), "POST", {}, 400, "JSON object"),
        ("NeMo Gym without create params", "/verify", body({**nemo, "responses_create_params": None}).encode(),
         "POST", {}, 400, "responses_create_params"),
        ("NeMo Gym response without output", "/verify", body({**nemo, "response": {"id": "r"}}).encode(), "POST",
         {}, 400, "output"),
        ("NeMo Gym seed not an object", "/seed_session", body([]).encode(), "POST", {}, 400, "object"),
        ("a label nested past the parser", "/reward", b'{"response": "x", "label": ' + b"[" * 100_000 +
         b"]" * 100_000 + b"}", "POST", {}, 400, "nests"),
    ]


@pytest.mark.parametrize("index", range(25))
def test_a_malformed_request_is_a_named_4xx_and_the_server_serves_on(server, gold, index):
    what, route, body, method, headers, status, word = _cases(gold)[index]
    got, reply = request(server.url + route, body, method, headers)
    assert got == status, (what, got, reply)
    assert isinstance(reply, dict) and word in reply["error"], (what, reply)
    assert get(server.url + "/health")[1]["status"] == "ok"
    after = post(server.url + "/get_reward", _one(gold))
    assert after[0] == 200 and after[1]["rewards"] == [5.0], what


def test_a_chunked_body_over_the_limit_is_stopped_while_read(server):
    """No Content-Length to refuse up front: reading stops at the limit with the same 413."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.putrequest("POST", "/get_reward")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.putheader("Content-Type", "application/json")
    connection.endheaders()
    chunk = b" " * 2**20
    try:
        for _ in range(MAX_BODY_MB + 2):
            connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        connection.send(b"0\r\n\r\n")
    except OSError:  # the server may answer and close before the rest is sent
        pass
    reply = connection.getresponse()
    assert reply.status == 413 and "at most" in json.loads(reply.read())["error"]
    connection.close()
    assert get(server.url + "/health")[1]["status"] == "ok"


def test_a_deep_label_inside_the_parser_limit_is_a_failing_sample_not_an_error(server, gold):
    status, reply = post(server.url + "/get_reward", _one(gold, labels=[deep(400)]))
    assert status == 200 and reply["rewards"] == [0.0] and reply["extra_logs"]["planshape/failure/error"] == [1.0]
