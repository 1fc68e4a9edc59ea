"""Start-up checks of the rollout settings, and how the client reads a server's requested wait."""

from __future__ import annotations

import email.utils
import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from planshape.shaping.rollout.client import RequestFailed, _backoff, _reply, _retry_after
from planshape.shaping.rollout.settings import RolloutSettings

BASE = {"base_url": "http://127.0.0.1:8000/v1", "model": "m"}


@pytest.mark.parametrize(("change", "message"), [
    ({"base_url": "127.0.0.1:8000"}, "--base-url must be an http(s) URL"),
    ({"model": " "}, "--model must name the served model"),
    ({"concurrency": 0}, "--concurrency must be a whole number >= 1"),
    ({"samples": True}, "--samples must be a whole number >= 1"),
    ({"retries": -1}, "--retries must be a whole number >= 0"),
    ({"temperature": 2.5}, "--temperature must be a number in [0, 2]"),
    ({"temperature": float("nan")}, "--temperature must be a number in [0, 2]"),
    ({"request_timeout_s": 0.0}, "--request-timeout must be a positive number"),
    ({"tool_format": "xml"}, "--tool-format must be one of"),
    ({"extra_body": ["top_p"]}, "--extra-body must be a JSON object"),
    ({"extra_body": {"stream": True}}, "--extra-body may not set ['stream']"),
])
def test_bad_settings_fail_naming_the_flag(change, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        RolloutSettings(**{**BASE, **change})


def test_the_fingerprint_leaves_out_what_may_change_between_reruns():
    a = RolloutSettings(**BASE, concurrency=4, request_timeout_s=5, retries=1, api_key="secret")
    b = RolloutSettings(**{**BASE, "base_url": "http://10.0.0.2:9000/v1"}, concurrency=64)
    assert a.fingerprint() == b.fingerprint() and "secret" not in str(a.fingerprint())
    assert a.fingerprint() != RolloutSettings(**BASE, max_turns=10).fingerprint()


def test_retry_after_in_milliseconds_seconds_or_a_date():
    assert _retry_after({"retry-after-ms": "250"}) == 0.25
    assert _retry_after({"retry-after": "2"}) == 2.0
    soon = email.utils.formatdate(time.time() + 3, usegmt=True)
    assert 1.0 < _retry_after({"retry-after": soon}) <= 3.0
    assert _retry_after({"retry-after": "3600"}) is None  # unreasonable: fall back to our backoff
    assert _retry_after({"retry-after": "soon"}) is None and _retry_after({}) is None


def test_backoff_grows_and_is_capped():
    assert 0.375 <= _backoff(0) <= 0.5 and 0.75 <= _backoff(1) <= 1.0 and _backoff(10) <= 8.0


def test_a_reply_is_read_defensively():
    reply = _reply({"choices": [{"message": {"content": None, "tool_calls": [
        {"function": {"name": "calculator", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": -3}})
    assert reply.content == "" and reply.tool_calls[0].id == "call_0" and reply.tool_calls[0].name == "calculator"
    assert (reply.prompt_tokens, reply.completion_tokens) == (5, 0)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["choices", "message", "content", "tool_calls", "function", "name",
                                         "arguments", "id", "usage", "finish_reason", "x"]), inner, max_size=4),
                    max_leaves=12)


@given(JSON)
def test_any_json_reply_is_a_reply_or_a_failed_request(body):
    try:
        reply = _reply(body)
    except RequestFailed:
        return
    assert isinstance(reply.content, str) and all(isinstance(c.id, str) for c in reply.tool_calls)
