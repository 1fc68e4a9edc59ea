"""The ``<answer>`` block read from untrusted model text: the last complete block, fuzzed with unclosed, nested
and partial tags against a regex reading of the rule, on huge inputs, in a counted linear scan."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from planshape.validators.travelplanner.plan.answer import CLOSE, OPEN, extract_answer

from tests.fuzz import FUZZ, Scanned, timed

# The rule as a (slow, backtracking) regex: the innermost blocks (no opening tag inside), the last one counts.
INNERMOST = re.compile(r"<answer>((?:(?!<answer>).)*?)</answer>", re.DOTALL)


def reference(text: str) -> str | None:
    blocks = INNERMOST.findall(text)
    return blocks[-1].strip() if blocks else None


@pytest.mark.parametrize(("text", "expected"), [
    ("x <answer>1</answer> y <answer> 2 </answer>", "2"),
    ("<answer>unterminated", None),
    ("<answer>[1]</answer>\nThe <answer> block above is my plan.", "[1]"),  # prose naming the tag after the block
    ("<answer>[1]</answer>\n<answer>[2, 3", "[1]"),  # a second answer cut off by the token limit
    ("<answer>a<answer>b</answer>", "b"),
    ("<answer><answer>b</answer></answer><answer>c", "b"),
    ("</answer><answer>", None),
    ("<answer></answer>", ""),
    ("no block", None),
])
def test_the_last_complete_block(text, expected):
    assert extract_answer(text) == expected == reference(text)


TOKENS = [OPEN, CLOSE, "<answer", "answer>", "</answer", "<", ">", "/", "[1]", " ", "\n", "x", "\ud800"]


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join))
def test_agrees_with_the_regex_reading(text):
    assert extract_answer(text) == reference(text)


HOSTILE = {
    "unclosed openings": lambda n: OPEN * n,
    "closes only": lambda n: CLOSE * n,
    "blocks then openings": lambda n: (OPEN + "[1]" + CLOSE) * n + OPEN * n,
    "a close then openings": lambda n: CLOSE + OPEN * n,
    "partial tags": lambda n: "<answer</answer" * n,
    "nested": lambda n: OPEN * n + "[1]" + CLOSE * n + OPEN,
}


@pytest.mark.parametrize("make", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_scan_is_linear_in_the_text(make):
    for n in (1_000, 100_000):
        text = Scanned(make(n))
        extract_answer(text)
        assert text.looked <= 4 * len(text) + 32, (n, text.looked, len(text))


def test_cpu_time_grows_with_the_size_not_faster():
    def cost(n: int) -> float:
        text = (OPEN + "[1]" + CLOSE) * n + OPEN * n
        return min(timed(lambda: extract_answer(text))[1] for _ in range(5))

    small, large = cost(8_192), cost(32 * 8_192)
    assert large < 32 * 8 * max(small, 1e-5), (small, large)


def test_huge_inputs_never_raise():
    assert extract_answer(OPEN + "[" * 20_000_000 + CLOSE + OPEN * 100_000) == "[" * 20_000_000
    assert extract_answer(b"<answer>1</answer>") is None and extract_answer(None) is None
