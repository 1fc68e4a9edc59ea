"""The bad-call checks (tests/environments/bad_calls.py) through ``vf-eval`` (verifiers' null harness, its tool
gate and the toolset's MCP server) against a scripted model: every bad call reads as the toolbox answers it,
every call is a model turn, and a stuck model is cut at ``max_turns``."""

from __future__ import annotations

import pytest

from ...environments.bad_calls import BAD, STUCK, check_answers, check_counted, check_stuck
from .test_environment import tool_texts, vf_eval

CAP = len(BAD) + 2  # room for the bad calls and the answer; the stuck model reaches it


@pytest.fixture(scope="module")
def traces(shared_dir, train_records, tmp_path_factory):
    record = train_records[0]
    rows = [{**record, "query": f"{record['query']} [bad calls]"}, {**record, "query": f"{record['query']} [stuck]"}]
    turns = {rows[0]["query"]: [{"tool_calls": [(name, arguments)]} for _, name, arguments in BAD] +
             [{"content": "I could not plan this trip."}],
             rows[1]["query"]: [{"tool_calls": [(STUCK[1], STUCK[2])]}]}  # the last action repeats: stuck
    traces = vf_eval(tmp_path_factory.mktemp("vf-bad"), rows, turns, shared_dir / "database",
                     extra=f"\n[env.agent]\nmax_turns = {CAP}\n")
    return [traces[r["query"]] for r in rows]


def _turns(trace: dict) -> int:
    return sum(n["message"]["role"] == "assistant" for n in trace["nodes"])


def test_bad_calls_read_as_the_toolbox_answers_them(traces, shared_dir):
    from planshape.shaping.facade import Shaper

    bad, _ = traces
    shaper = Shaper.from_mapping({"database": str(shared_dir / "database"), "total_steps": 1})
    assert bad["ok"], bad["errors"]
    check_answers(tool_texts(bad), shaper.tools())
    check_counted(_turns(bad))
    assert bad["info"]["planshape"]["failure"] == "no_answer"


def test_a_stuck_model_is_cut_at_the_cap(traces):
    _, stuck = traces
    check_stuck(stuck["info"]["planshape"]["failure"], stuck["info"]["planshape"]["reason"], _turns(stuck), CAP)
