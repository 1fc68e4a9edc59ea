"""Text-mode tool calls: ``<tool_call>`` blocks parsed from untrusted model text, never raising, in linear time."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st
from planshape.validators.travelplanner.agent.tool_calls import MAX_CALL_CHARS, parse_tool_calls, tool_responses


def test_blocks_in_order_up_to_the_limit():
    text = ('think <tool_call>{"name": "get_cities", "arguments": {"state": "Texas"}}</tool_call> and '
            '<tool_call>{"name": "calculator", "arguments": {"expression": "1+1"}}</tool_call>'
            '<tool_call>{"name": "calculator"}</tool_call>')
    assert parse_tool_calls(text, 8) == [("get_cities", {"state": "Texas"}), ("calculator", {"expression": "1+1"}),
                                         ("calculator", None)]
    assert parse_tool_calls(text, 1) == [("get_cities", {"state": "Texas"})]


def test_bad_blocks_become_calls_the_tools_reject():
    assert parse_tool_calls("<tool_call>{oops</tool_call>", 8) == [("", "{oops")]
    assert parse_tool_calls('<tool_call>["calculator"]</tool_call>', 8) == [("", '["calculator"]')]
    assert parse_tool_calls("<tool_call>" + "[" * 100_000 + "</tool_call>", 8)[0][0] == ""
    long = '{"name": "calculator", "arguments": {"expression": "' + "1+" * MAX_CALL_CHARS + '1"}}'
    assert parse_tool_calls(f"<tool_call>{long}</tool_call>", 8)[0][0] == ""


def test_unclosed_blocks_and_non_text():
    assert parse_tool_calls('<tool_call>{"name": "calculator"}', 8) == []
    assert parse_tool_calls(None, 8) == [] and parse_tool_calls(b"<tool_call>", 8) == []


def test_many_unclosed_openings_cost_linear_time():
    text = "<tool_call>x" * 200_000
    start = time.perf_counter()
    assert parse_tool_calls(text, 8) == []
    assert time.perf_counter() - start < 0.5


def test_responses_are_wrapped_one_block_each():
    assert tool_responses(["a", "Error: b"]) == ("<tool_response>\na\n</tool_response>\n"
                                                 "<tool_response>\nError: b\n</tool_response>")


@given(st.lists(st.sampled_from(["<tool_call>", "</tool_call>", "{", "}", '"name"', ":", '"x"', "[", "a", "\ud800"]),
                max_size=40).map("".join), st.integers(1, 5))
def test_never_raises_and_respects_the_limit(text, limit):
    calls = parse_tool_calls(text, limit)
    assert len(calls) <= min(limit, text.count("</tool_call>"))
