"""One path from model text to verdicts: with a plugin that brings its own answer format and a failing check,
the reward, ``explain``, ``planshape evaluate`` and ``planshape rollout``'s submission agree."""

from __future__ import annotations

import json

from planshape.shaping.cli import main
from planshape.shaping.facade import Shaper
from planshape.shaping.rollout.runner import submitted_plan

from tests.one_path_plugin import CHECK, loaded, passing_rollout

SETTINGS = {"database": "sample", "schedule": "stage1", "estimator": "grpo", "total_steps": 10}


def test_score_explain_evaluate_and_rollout_agree_under_a_plugin(tmp_path, capsys):
    text, query = passing_rollout()
    with loaded():
        shaper = Shaper.from_mapping(SETTINGS)
        scored = shaper.score(text, query, 0)
        explained = shaper.explain(text, query).to_dict()
        plan, note = submitted_plan(text, shaper)
        (tmp_path / "plans.jsonl").write_text(json.dumps({"idx": 0, "plan": text}) + "\n", encoding="utf-8")
        (tmp_path / "queries.jsonl").write_text(json.dumps(query) + "\n", encoding="utf-8")
        assert main(["evaluate", str(tmp_path / "plans.jsonl"), "--queries", str(tmp_path / "queries.jsonl"),
                     "--mode", "strict", "--json", str(tmp_path / "report.json"),
                     "--no-progress"]) == 0
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    # The reward: read in the plugin's format, failed by the plugin's check (4 of 5 stage-1 components).
    assert scored.failure == f"commonsense:{CHECK}" and 0 < scored.reward < shaper.max_reward(0)
    # explain: the same reading and the same verdicts.
    verdicts = {c["key"]: c["verdict"] for c in explained["checks"]}
    assert explained["final_pass"] is False and verdicts[CHECK] == "fail"
    assert explained["gate"] == "conforms to the plan schema"
    # evaluate: the plan is delivered (read as the reward reads it) and fails the same check.
    assert report["metrics"]["rates"]["delivery_rate"] == 1.0 and report["metrics"]["rates"]["final_pass_rate"] == 0.0
    assert report["plans"][0]["commonsense"][CHECK]["verdict"] == "fail"
    # rollout's submission: the same plan.
    assert plan is not None and note == ""


def test_without_the_plugin_the_same_text_is_no_answer():
    text, query = passing_rollout()
    shaper = Shaper.from_mapping(SETTINGS)
    assert shaper.score(text, query, 0).failure == "no_answer"
    assert shaper.explain(text, query).to_dict()["final_pass"] is False
    assert submitted_plan(text, shaper)[0] is None
