"""Every trainer gets the monitor, the verdict log and the budgets through the facade, with no adapter code."""

from __future__ import annotations

import json

import numpy as np
import pytest
from planshape.shaping.facade import ConfigError, Shaper
from planshape.shaping.observe.monitor import MONITOR_METRICS
from planshape.shaping.observe.verdict_log import read_log
from planshape.validators.travelplanner.plan.formats import from_upstream

from tests.stall_probe import sample_rows, with_word

from ..travelplanner.test_quirks import SAMPLE_Q, sample

BASE = {"database": "sample", "total_steps": 100}


def _answer(plan) -> str:
    return "<answer>" + json.dumps(from_upstream(plan)) + "</answer>"


def _query_record(query) -> dict:
    record = query.model_dump()
    record["local_constraint"] = {"house rule": None, "cuisine": None, "room type": None, "transportation": None}
    return record


EXPLOIT = sample({(0, "transportation"): "Flight Number: F9000201, from Harborview to Lindenfield, "
                                         "Departure Time: 07:30, Arrival Time: 09:20"})


def test_monitor_metrics_reach_every_sample():
    shaper = Shaper.from_mapping(BASE)
    assert {f"planshape/{m}" for m in MONITOR_METRICS} <= set(shaper.metric_names)
    query = _query_record(SAMPLE_Q)
    gold, exploit, nothing = shaper.score_batch([_answer(sample()), _answer(EXPLOIT), "no answer"], [query] * 3, 0)
    for s in (gold, exploit, nothing):
        assert set(s.metrics()) == set(shaper.metric_names)
    assert gold.success and gold.official_pass and not gold.exploit
    assert exploit.failure == "commonsense:is_valid_information_in_sandbox" and exploit.reward < 1
    assert exploit.exploit and exploit.official_pass
    m = exploit.metrics()
    assert m["planshape/exploit"] == m["planshape/exploit/ignore_flight_date"] == 1.0
    assert nothing.failure == "no_answer" and nothing.metrics()["planshape/official_pass"] == 0.0
    assert exploit.verdicts[1] == "f" and gold.verdicts == "pppppppp" + gold.verdicts[8:]
    off = Shaper.from_mapping({**BASE, "monitor": False})
    assert not any("exploit" in n for n in off.metric_names)
    assert off.score(_answer(EXPLOIT), query, 0).exploit is None


def test_observability_settings_are_checked_at_start(tmp_path):
    (tmp_path / "file").write_text("x")
    for bad, field in (({"sample_budget_s": 0}, "sample_budget_s"), ({"sample_budget_s": float("inf")},
                       "sample_budget_s"), ({"workers": -1}, "workers"), ({"log_dir": str(tmp_path / "file")},
                       "log_dir"), ({"monitr": True}, "monitr")):
        with pytest.raises(ConfigError, match=field):
            Shaper.from_mapping({**BASE, **bad})
    described = Shaper.from_mapping({**BASE, "workers": 2, "sample_budget_s": None}).describe()
    assert (described["monitor"], described["workers"], described["sample_budget_s"]) == (True, 2, None)


def test_the_verdict_log_gets_scores_and_advantages(tmp_path):
    torch = pytest.importorskip("torch")
    shaper = Shaper.from_mapping({**BASE, "log_dir": str(tmp_path)})
    query = _query_record(SAMPLE_Q)
    texts = [_answer(sample()), _answer(EXPLOIT), "nothing", _answer(sample())]
    scores = shaper.score_batch(texts, [query] * 4, 7)
    mask = torch.zeros(4, 12)
    mask[:, 1:4] = 1
    mask[:, 6:9] = 1  # two assistant turns per row
    mask[3, 6:9] = 0
    shaper.advantages(torch.tensor([s.reward for s in scores]), mask, ["a", "a", "b", "b"], 7,
                      success=[s.success for s in scores])
    shaper.score(texts[1], query, 8)  # a single score stays buffered until its step is over
    shaper.close()
    headers, records, skipped = read_log(tmp_path)
    assert skipped == 0 and headers[0]["describe"]["mode"] == "strict"
    # one process scored and estimated step 7: one record per sample with both halves
    both = [r for r in records if r["kind"] == "sample"]
    assert [(r["step"], r["sample"], r["failure"]) for r in both] == [
        (7, 0, "pass"), (7, 1, "commonsense:is_valid_information_in_sandbox"), (7, 2, "no_answer"), (7, 3, "pass")]
    assert both[1]["exploit"] is True and both[1]["rules"] == ["ignore_flight_date"]
    assert both[1]["verdicts"] == scores[1].verdicts and both[2]["verdicts"] == "-" * 13
    assert [(r["group"], r["trajectory"], r["turns"]) for r in both] == [("a", 0, 2), ("a", 1, 2), ("b", 0, 2),
                                                                          ("b", 1, 1)]
    assert both[0]["turn_lengths"] == [3, 3] and len(both[0]["a_s"]) == 2
    assert both[0]["a_e"] > 0 > both[1]["a_e"]  # the passing plan against the exploit in group a
    assert both[0]["level"] == "easy" and both[0]["days"] == 3
    # step 8 was scored without advantages: a score record, written at close
    assert [(r["kind"], r["step"]) for r in records if r["kind"] != "sample"] == [("score", 8)]


def test_halves_that_do_not_match_are_logged_apart(tmp_path):
    torch = pytest.importorskip("torch")
    shaper = Shaper.from_mapping({**BASE, "log_dir": str(tmp_path)})
    query = _query_record(SAMPLE_Q)
    shaper.score_batch([_answer(sample()), "nothing"], [query] * 2, 0)
    mask = torch.ones(2, 4)
    shaper.advantages(torch.tensor([0.5, 0.0]), mask, ["a", "a"], 0)  # not the rewards just scored
    shaper.score_batch(["nothing"], [query], 1)
    shaper.score_batch(["nothing"], [query], 2)  # a new step writes step 1's held score
    log = shaper._resources.verdict_log().log
    log.wait()
    _, records, _ = read_log(tmp_path)
    assert [(r["kind"], r["step"]) for r in records] == [("score", 0), ("score", 0), ("advantage", 0),
                                                         ("advantage", 0), ("score", 1)]
    assert log.flushed_step == 1
    shaper.close()
    assert [r["step"] for r in read_log(tmp_path)[1]][-1] == 2


def test_budget_and_crash_through_the_facade(stall_plugin, tmp_path):
    rows = sample_rows()
    stalls = {1: "SLEEP", 4: "DIE"}
    queries = [with_word(r, stalls[i])["query"] if i in stalls else r["query"] for i, r in enumerate(rows)]
    texts = [r["text"] for r in rows]
    inline = Shaper.from_mapping({**BASE, "sample_budget_s": 0.5})
    plain = inline.score_batch(texts[:1] + texts[2:4], queries[:1] + queries[2:4], 0)
    slept = inline.score_batch(texts[:2], queries[:2], 0)  # in-process: the timer stops the sleeping check
    assert slept[1].failure == "timeout" and slept[0].reward == plain[0].reward
    pooled = Shaper.from_mapping({**BASE, "sample_budget_s": 2.0, "workers": 2, "log_dir": str(tmp_path / "log")})
    try:
        scores = pooled.score_batch(texts, queries, 3)
    finally:
        pooled.close()
    assert len(scores) == len(rows)
    assert scores[1].failure == "timeout" and scores[4].failure == "crash"
    for s in (scores[1], scores[4]):
        assert s.reward == 0 and not s.success and s.metrics()[f"planshape/failure/{s.failure}"] == 1.0
        assert set(s.metrics()) == set(pooled.metric_names)
    assert [s.reward for s in (scores[0], scores[2], scores[3])] == [p.reward for p in plain]
    _, records, _ = read_log(tmp_path / "log")
    assert sorted(r["failure"] for r in records if r["failure"] in ("timeout", "crash")) == ["crash", "timeout"]
    assert len(records) == len(rows)
    assert np.isclose(sum(s.metrics()["planshape/failure/timeout"] for s in scores), 1)
