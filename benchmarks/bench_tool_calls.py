"""Tool calls written as text, on hostile turns: the core's parser against a lazy-regex baseline in the same run.

    python benchmarks/bench_tool_calls.py [--repeat N]

The baseline is the obvious ``re.findall(r"<tool_call>(.*?)</tool_call>", text, re.DOTALL)`` (what the OpenRLHF
agent used before it moved to the core's parser): on a turn of unclosed ``<tool_call>`` tags it rescans the
rest of the text from every tag, so its cost grows with the square of the turn. The core's parser
(``parse_tool_calls``) stops at the first unclosed tag and caps every block, so it stays linear. Prints CPU
seconds (best of ``--repeat``) for each turn and the baseline's time over the parser's.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable

from planshape.shaping.facade import MAX_TEXT_CALLS, parse_tool_calls

LAZY = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
CALL = '<tool_call>{"name": "get_cities", "arguments": {"state": "Texas"}}</tool_call>'

TURNS = {
    "8,192 unclosed <tool_call> tags": "<tool_call>" * 8192,
    "8,192 unclosed tags, then one call": "<tool_call>" * 8192 + CALL,
    "64 closed calls": CALL * 64,
    "one 1 MB block": "<tool_call>" + "x" * 1_000_000 + "</tool_call>",
    "nested tags, 4,096 deep": "<tool_call>" * 4096 + "</tool_call>" * 4096,
}


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'turn':<38} {'parser (s)':>11} {'regex (s)':>11} {'regex/parser':>13}")
    for name, text in TURNS.items():
        ours = best(lambda text=text: parse_tool_calls(text, MAX_TEXT_CALLS), args.repeat)
        theirs = best(lambda text=text: LAZY.findall(text), args.repeat)
        print(f"{name:<38} {ours:>11.6f} {theirs:>11.6f} {theirs / max(ours, 1e-9):>12.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
