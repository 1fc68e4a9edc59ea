"""The facade's agent side (``shaping/environment.py``): an episode over the full database scores exactly as the
facade does, bad model output is a failing score or an ``Error:`` text with a reason, and ``planshape rollout``
gives the facade's score on the same answers (the rollout leg of the one-reward check)."""

from __future__ import annotations

import json

import pytest
from planshape.shaping.facade import Episode, Shaper, episode_records, query_json, read_queries, split_queries

from .cases import BAD_CALLS, NO_ANSWER, cases, facade_view, good_calls


@pytest.fixture(scope="module")
def shaper(shared_dir):
    return Shaper.from_mapping({"database": str(shared_dir / "database"), "total_steps": 1})


@pytest.fixture(scope="module")
def records(shaper, shared_dir):
    return read_queries(shared_dir / "train.csv")


def test_an_episode_gives_the_toolbox_answers_and_the_facade_score(shaper, records):
    box = shaper.tools()
    episode = Episode(shaper)
    for name, text, record in cases(records):
        assert episode.reset(record) == shaper.messages(record)
        for tool, arguments in good_calls(record):
            result = episode.call(tool, arguments)
            assert result == box.call(tool, arguments) and not result.startswith("Error")
        score = episode.finish(text)
        assert facade_view(score) == facade_view(shaper.score(text, record, 0)), name
        assert episode.turns == 4 and episode.tool_calls == 3 and episode.done
    gold = Episode(shaper)
    gold.reset(records[0])
    assert gold.finish(cases(records)[0][1]).reward == shaper.max_reward(0)


def test_bad_output_is_a_failing_score_or_an_error_text(shaper, records):
    episode = Episode(shaper)
    episode.reset(records[0])
    for name, arguments in BAD_CALLS:
        assert episode.call(name, arguments).startswith("Error:")
    by_case = {name: episode_score(shaper, text, record) for name, text, record in cases(records)}
    for name in ("no_answer", "malformed", "overlong", "hallucinated"):
        assert by_case[name].reward < shaper.max_reward(0) and by_case[name].failure and by_case[name].reason, name
    assert by_case["no_answer"].failure == "no_answer"
    assert by_case["malformed"].failure == by_case["overlong"].failure == "schema"
    assert by_case["hallucinated"].failure.startswith("commonsense:")
    for odd in (None, 17, b"<answer>[]</answer>"):  # not text: scored as no answer, never raised
        assert episode_score(shaper, odd, records[0]).failure == "no_answer"


def episode_score(shaper, text, record):
    episode = Episode(shaper)
    episode.reset(record)
    return episode.finish(text)


def test_the_turn_cap_is_the_training_loops(shaper, records):
    """Every action is a turn; the max_turns-th is final: a tool call there is not run and no answer is scored."""
    episode = Episode(shaper, max_turns=3)
    episode.reset(records[0])
    assert not episode.call("calculator", {"expression": "1+1"}).startswith("Error")
    assert not episode.call("calculator", {"expression": "1+2"}).startswith("Error")
    assert episode.call("calculator", {"expression": "1+3"}).startswith("Error: the turn cap (3")
    assert episode.tool_calls == 2 and episode.done and episode.score.failure == "no_answer"
    assert "turn cap" in episode.score.reason
    assert episode.call("calculator", {"expression": "1"}).startswith("Error: the episode is over")
    assert episode.finish(cases(records)[0][1]).failure == "no_answer"  # the cut episode keeps its score
    answered = Episode(shaper, max_turns=3)
    answered.reset(records[0])
    answered.call("calculator", {"expression": "1"})
    answered.call("calculator", {"expression": "2"})
    assert answered.finish(cases(records)[0][1]).success  # the 3rd turn answers: scored
    assert Episode(shaper, max_turns=None).max_turns is None
    with pytest.raises(ValueError, match="max_turns"):
        Episode(shaper, max_turns=0)


def test_episode_misuse_and_bad_queries_raise_configuration_errors(shaper, records):
    with pytest.raises(RuntimeError, match="reset"):
        Episode(shaper).call("calculator", {"expression": "1"})
    with pytest.raises(ValueError):
        Episode(shaper).reset('{"query": 3')
    episode = Episode(shaper)
    episode.reset(json.dumps(query_json(records[0]) and json.loads(query_json(records[0]))))
    assert episode.end("the model stopped").failure == "no_answer" and episode.score.reason == "the model stopped"
    episode.reset(records[1])  # a reset starts afresh
    assert not episode.done and episode.turns == 0 and episode.answer is None


def test_episode_records_are_the_files_and_the_re_split(shaper, shared_dir):
    path = shared_dir / "train.csv"
    everything = episode_records(shaper, [path])
    train = episode_records(shaper, [path], "train", val_size=9)
    validation = episode_records(shaper, [path], "validation", val_size=9)
    assert (train, validation) == split_queries(everything, 9)
    assert len(everything) == 45 and len(validation) == 9
    assert episode_records(shaper, ["sample"]) == read_queries("sample")
    with pytest.raises(ValueError, match="split"):
        episode_records(shaper, [path], "test")


def test_planshape_rollout_gives_the_facade_score(shaper, records, shared_dir, tmp_path):
    pytest.importorskip("aiohttp")
    from planshape.shaping.cli import main

    from ..rollout.scripted_model import model
    from ..rollout.scripted_server import ScriptedServer

    rows, turns = [], {}
    for k, (_, text, record) in enumerate(cases(records)):
        row = {**record, "query": f"{record['query']} [case {k}]"}
        rows.append(row)
        turns[row["query"]] = [{"tool_calls": [(n, json.dumps(a)) for n, a in good_calls(record)[:1]]},
                               {"content": text}]
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with ScriptedServer(model(turns)) as server:
        assert main(["rollout", str(queries), "--base-url", server.base_url, "--model", "scripted", "-o",
                     str(tmp_path / "run"), "--database", str(shared_dir / "database"), "--no-progress"]) == 0
    results = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert len(results) == len(rows)
    for result, row, (name, text, _) in zip(results, rows, cases(records), strict=True):
        want = facade_view(shaper.score(text, row, 0))
        got = result["score"]
        assert {k: got[k] for k in ("reward", "success", "failure", "reason", "components")} == \
            {k: want[k] for k in ("reward", "success", "failure", "reason", "components")}, name
    assert NO_ANSWER in {r["answer"] for r in results}
