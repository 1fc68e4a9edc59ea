"""The Planner-R1 reward: components, stage weights, the gate, and that model output never raises."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from planshape.shaping.reward import COMPONENTS, Scorer, failure_counts
from planshape.validators.travelplanner.plan.formats import from_upstream
from planshape.validators.travelplanner.sample import sample_dir

ROWS = [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def scorer(sample_store):
    return Scorer(sample_store)


def test_sample_rollouts_stage1(scorer):
    results = [scorer.score(r["text"], r["query"]) for r in ROWS]
    assert [r.reward for r in results] == [5.0, 5.0, 2.875, 0.0, 5.0, 5.0, 0.875, 0.0]
    assert [r.failure for r in results] == [
        "", "", "commonsense:is_valid_restaurants", "no_answer", "", "",
        "commonsense:is_valid_information_in_sandbox", "schema"]
    # repeated restaurant: 7 of 8 commonsense pass, hard all pass -> 7/8 + 1 + 0 + 1 + 0
    assert results[2].components == {"schema": 1.0, "cs_micro": 0.875, "hard_micro": 1.0, "cs_macro": 0.0,
                                      "hard_macro": 1.0, "pass": 0.0}
    # invented restaurant: Within Sandbox fails, hard checks do not run and count as failed
    assert results[6].components["hard_micro"] == 0.0 and results[6].components["hard_macro"] == 0.0
    assert results[7].reason == "day 1: 'transportation' is a required property"
    assert failure_counts(results) == {"pass": 4, "commonsense:is_valid_restaurants": 1, "no_answer": 1,
                                       "commonsense:is_valid_information_in_sandbox": 1, "schema": 1}
    assert all(set(r.components) == set(COMPONENTS) for r in results)


@pytest.mark.parametrize(("schedule", "step", "rewards", "stage"), [
    ("stage2", 0, [3.0, 3.0, 1.0, 0.0, 3.0, 3.0, 0.0, 0.0], "stage2"),
    ("stage3", 0, [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0], "stage3"),
    ("curriculum-8b", 99, [5.0, 5.0, 2.875, 0.0, 5.0, 5.0, 0.875, 0.0], "stage1"),
    ("curriculum-8b", 100, [3.0, 3.0, 1.0, 0.0, 3.0, 3.0, 0.0, 0.0], "stage2"),
    ("curriculum-32b", 400, [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0], "stage3"),
])
def test_weights_follow_the_schedule(sample_store, schedule, step, rewards, stage):
    s = Scorer(sample_store, schedule=schedule)
    results = [s.score(r["text"], r["query"], step) for r in ROWS]
    assert [r.reward for r in results] == rewards
    assert {r.stage for r in results} == {stage}


def test_official_mode_pays_for_a_quirk_strict_does_not(sample_store):
    row = ROWS[0]
    plan = json.loads(row["text"].split("<answer>")[1].split("</answer>")[0])
    plan[1]["breakfast"] = {"name": "The Copper", "city": "Lindenfield"}  # a fragment of a real name
    text = "<answer>" + json.dumps(plan) + "</answer>"
    assert Scorer(sample_store, mode="official").score(text, row["query"]).reward == 5.0
    strict = Scorer(sample_store, mode="strict").score(text, row["query"])
    assert strict.reward < 5.0 and strict.failure == "commonsense:is_valid_information_in_sandbox"


@pytest.mark.parametrize(("text", "failure"), [
    ("", "no_answer"), (None, "no_answer"), (b"<answer>[]</answer>", "no_answer"), (12, "no_answer"),
    ("<answer>[1, 2</answer>", "schema"), ("<answer>" + "[" * 10_000 + "</answer>", "schema"),
    ("<answer>" + "x" * 200_000 + "</answer>", "schema"), ("<answer>[NaN]</answer>", "schema"),
    ("<answer>\ud800</answer>", "schema"),
])
def test_bad_output_scores_zero_with_a_reason(scorer, text, failure):
    result = scorer.score(text, ROWS[0]["query"])
    assert result.reward == 0.0 and result.failure == failure and result.reason


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300) | st.recursive(st.none() | st.integers() | st.text(max_size=20),
                                             lambda x: st.lists(x, max_size=3) | st.dictionaries(st.text(max_size=8), x,
                                                                                                 max_size=3),
                                             max_leaves=15).map(lambda v: f"<answer>{json.dumps(v)}</answer>"))
def test_any_text_never_raises(sample_store, text):
    result = Scorer(sample_store).score(text, ROWS[0]["query"])
    assert 0.0 <= result.reward <= 5.0


def test_structured_plan_variants_never_raise(scorer):
    plan = json.loads(ROWS[4]["text"].split("<answer>")[1].split("</answer>")[0])
    for day in plan:
        day["city"] = {"from": "Harborview", "to": ""} if day["days"] == 2 else day["city"]
    result = scorer.score("<answer>" + json.dumps(plan) + "</answer>", ROWS[4]["query"])
    assert result.failure == "schema"


def test_a_bad_query_or_database_fails_as_configuration(tmp_path):
    from planshape.shaping import ConfigError, Shaper

    shaper = Shaper.from_mapping({"database": "sample", "estimator": "grpo"})
    assert shaper.score(ROWS[0]["text"], ROWS[0]["query"], 0).reward == 5.0
    with pytest.raises(ValueError):
        shaper.score(ROWS[0]["text"], {"org": "Harborview"}, 0)
    with pytest.raises(ConfigError, match="does not exist"):
        Shaper.from_mapping({"database": str(tmp_path / "missing")})


def test_unknown_mode_and_schedule_fail_at_start(sample_store):
    with pytest.raises(ValueError, match="unknown mode"):
        Scorer(sample_store, mode="lenient")
    with pytest.raises(ValueError, match="unknown schedule"):
        Scorer(sample_store, schedule="stage9")


def test_upstream_answer_with_strings_fails_schema(scorer):
    upstream = [{"days": 1, "current_city": "from A to B"}]
    assert scorer.score("<answer>" + json.dumps(upstream) + "</answer>", ROWS[0]["query"]).failure == "schema"
    assert from_upstream  # the structured converter is the documented way to turn such plans into answers


def test_cli_score_sample(tmp_path, capsys):
    from planshape.shaping.cli import main

    out = tmp_path / "scores.json"
    assert main(["score", "--json", str(out)]) == 0
    report = json.loads(Path(out).read_text())
    assert report["alpha"] == pytest.approx(0.1) and report["stage"] == "stage1"
    t = report["trajectories"]
    assert [x["turns"] for x in t] == [len(r["turn_tokens"]) for r in ROWS]
    # the shorter of two successes gets more trajectory-level credit; failures never more than successes
    assert t[0]["advantage_trajectory"] > t[1]["advantage_trajectory"] > t[2]["advantage_trajectory"]
    assert max(x["advantage_trajectory"] for x in t[4:] if not x["success"]) < min(
        x["advantage_trajectory"] for x in t[4:] if x["success"])
    assert "failures:" in capsys.readouterr().out
    assert main(["score", "--estimator", "ppo"]) == 2
