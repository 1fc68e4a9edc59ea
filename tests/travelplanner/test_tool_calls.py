"""Text-mode tool calls: ``<tool_call>`` blocks parsed from untrusted model text, never raising, in linear time.

The blocks are the trainers' regex blocks (``<tool_call>(.*?)</tool_call>``), fuzzed with unclosed, nested and
partial tags; a block that is no call carries the reason the model is answered with; the scan looks at each
character a bounded number of times (counted, and its CPU time grows with the input's size, not faster)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from planshape.validators.travelplanner.agent.tool_calls import (
    CLOSE_CALL,
    MAX_CALL_CHARS,
    OPEN_CALL,
    TextCall,
    parse_tool_calls,
    tool_responses,
)
from planshape.validators.travelplanner.agent.tools import ToolBox
from planshape.validators.travelplanner.sample import sample_database
from planshape.validators.travelplanner.store.sqlite import open_store

from tests.fuzz import FUZZ, Scanned, timed

TRAINERS_REGEX = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)  # VERL's hermes parser, OpenRLHF's agent
CALC = '{"name": "calculator", "arguments": {"expression": "1+1"}}'


@pytest.fixture(scope="module")
def toolbox() -> ToolBox:
    return ToolBox(open_store(str(sample_database())))


def test_blocks_in_order_up_to_the_limit():
    text = ('think <tool_call>{"name": "get_cities", "arguments": {"state": "Texas"}}</tool_call> and '
            f'<tool_call>{CALC}</tool_call>'
            '<tool_call>{"name": "calculator"}</tool_call>')
    assert parse_tool_calls(text, 8) == [TextCall("get_cities", {"state": "Texas"}),
                                         TextCall("calculator", {"expression": "1+1"}), TextCall("calculator")]
    assert parse_tool_calls(text, 1) == [TextCall("get_cities", {"state": "Texas"})]


@pytest.mark.parametrize(("block", "reason"), [
    ("{oops", "the tool call is not valid JSON (Expecting property name enclosed in double quotes at character 1)"),
    ('["calculator"]', 'a tool call is a JSON object {"name": ..., "arguments": {...}}, got an array'),
    ('"calculator"', "got a string"),
    ("null", "got null"),
    ('{"arguments": {"expression": "1"}}', 'the tool call has no "name"'),
    ("  \n ", "the tool call is empty"),
    ("[" * 100_000, f"the tool call is longer than {MAX_CALL_CHARS} characters"),
    ("[" * 4000, "the tool call is not valid JSON"),  # nested past the JSON parser's depth, under the cap
    ('{"name": "calculator", "arguments": {"expression": "' + "1+" * MAX_CALL_CHARS + '1"}}',
     f"longer than {MAX_CALL_CHARS} characters"),
    (f"{CALC}{OPEN_CALL}{CALC}", f"a {OPEN_CALL} block holds another {OPEN_CALL} tag"),
    (f"{OPEN_CALL}{OPEN_CALL}{CALC}", "holds another"),
])
def test_a_block_that_is_no_call_carries_the_reason(block, reason, toolbox):
    (call,) = parse_tool_calls(f"text {OPEN_CALL}{block}{CLOSE_CALL} more", 8)
    assert call.error is not None and reason in call.error and len(call.error) < 200
    assert toolbox.call_turn([call], 8) == [f"Error: {call.error}"]  # what the model reads, as for a bad native call


def test_the_reason_fits_the_toolbox_response_limit(toolbox):
    (call,) = parse_tool_calls(f"{OPEN_CALL}{{oops{CLOSE_CALL}", 8)
    small = ToolBox(toolbox.store, max_chars=24)
    assert small.call_turn([call], 8) == [f"Error: {call.error}"[:24]]  # as the toolbox cuts its own error answers


def test_a_turn_runs_on_the_toolbox(toolbox):
    calls = parse_tool_calls(f'{OPEN_CALL}{CALC}{CLOSE_CALL}{OPEN_CALL}{{"name": "book_hotel"}}{CLOSE_CALL}'
                             f"{OPEN_CALL}[]{CLOSE_CALL}{OPEN_CALL}{CALC}{CLOSE_CALL}", 8)
    answers = toolbox.call_turn(calls, 3)
    assert answers[0] == "2" and answers[1].startswith("Error: unknown tool 'book_hotel'")
    assert answers[2] == f"Error: {calls[2].error}" and "got an array" in answers[2]
    assert answers[3] == "Error: at most 3 tool calls per turn; this one was not run"


def test_unclosed_blocks_and_non_text():
    assert parse_tool_calls('<tool_call>{"name": "calculator"}', 8) == []
    assert parse_tool_calls(f"{OPEN_CALL}{CALC}{CLOSE_CALL} then {OPEN_CALL}{CALC}", 8) == [
        TextCall("calculator", {"expression": "1+1"})]
    assert parse_tool_calls(None, 8) == [] and parse_tool_calls(b"<tool_call>", 8) == []


def test_responses_are_wrapped_one_block_each():
    assert tool_responses(["a", "Error: b"]) == ("<tool_response>\na\n</tool_response>\n"
                                                 "<tool_response>\nError: b\n</tool_response>")


TOKENS = [OPEN_CALL, CLOSE_CALL, "<tool_", "call>", "</tool", "_call>", "<tool_call", "/tool_call>", "{", "}",
          '"name"', '"arguments"', ":", ",", '"calculator"', '{"expression": "1+1"}', "[", "]", "null", "x", " ",
          "\n", '"', "\\", "\ud800", CALC]


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=60).map("".join), st.integers(1, 6))
def test_blocks_are_the_trainers_regex_blocks_and_each_is_read_right(text, limit):
    calls = parse_tool_calls(text, limit)
    blocks = TRAINERS_REGEX.findall(text)[:limit]
    assert len(calls) == len(blocks)
    for call, block in zip(calls, blocks, strict=True):
        if call.error is None:  # a call is exactly the block's JSON object
            value = json.loads(block)
            assert OPEN_CALL not in block and len(block) <= MAX_CALL_CHARS
            assert (call.name, call.arguments) == (value["name"], value.get("arguments"))
        else:  # the block is no call, and the reason is short and echoes none of it
            assert len(call.error) < 200 and "\ud800" not in call.error
            try:
                value = json.loads(block)
            except ValueError:
                continue
            assert OPEN_CALL in block or not isinstance(value, dict) or "name" not in value


# Texts that cost a naive scanner (a lazy regex, a rescan per opening tag) time quadratic in their length.
HOSTILE = {
    "unclosed openings": lambda n: "<tool_call>x" * n,
    "openings, one close": lambda n: OPEN_CALL * n + CLOSE_CALL,
    "nested blocks": lambda n: (OPEN_CALL * 8 + CLOSE_CALL) * (n // 8),
    "closes only": lambda n: CLOSE_CALL * n,
    "partial tags": lambda n: "<tool_call</tool_call" * n,
    "one huge block": lambda n: OPEN_CALL + "[" * (12 * n) + CLOSE_CALL,
    "many calls": lambda n: (OPEN_CALL + CALC + CLOSE_CALL) * (n // 4),
}


@pytest.mark.parametrize("make", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_scan_is_linear_in_the_text(make):
    for n in (1_000, 64_000):
        text = Scanned(make(n))
        parse_tool_calls(text, 10**9)  # no limit: every block is read
        assert text.looked <= 3 * len(text) + 64, (n, text.looked, len(text))


def test_cpu_time_grows_with_the_size_not_faster():
    """The 8,192-unclosed-tags turn (the OpenRLHF regex took 2.8 s on it) and one 32 times larger: the CPU time
    (best of five, this thread only) grows at most about linearly; a quadratic scan would grow 1,024-fold."""
    def cost(n: int) -> float:
        text = "<tool_call>" * n
        return min(timed(lambda: parse_tool_calls(text, 64))[1] for _ in range(5))

    small, large = cost(8_192), cost(32 * 8_192)
    assert small < 0.01 and large < 32 * 8 * max(small, 1e-5), (small, large)


def test_huge_inputs_never_raise():
    text = ("<tool_call>" + "{" * 5000 + "</tool_call>\ud800" + CALC) * 2_000 + OPEN_CALL * 200_000  # ~12 MB
    calls = parse_tool_calls(text, 64)
    assert len(calls) == 64 and all(c.error and "longer than" in c.error for c in calls)
