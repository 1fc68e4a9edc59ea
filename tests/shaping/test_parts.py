"""Each part ``Shaper`` holds, built and tested alone, without a ``Shaper``: the reward (``Scorer`` and what it owns:
the weighing, the success rule, the carried samples, the metric names), the estimator, the agent side, the process's
resources and the description. ``Shaper``'s own tests (test_facade.py) check that it delegates to them."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from planshape.shaping.advantages import Rollouts, planpo
from planshape.shaping.components import COMPONENTS, NO_ANSWER, TIMEOUT
from planshape.shaping.config import ConfigError, ShapingConfig, Success
from planshape.shaping.facade.agent import AgentSide
from planshape.shaping.facade.describe import Description
from planshape.shaping.facade.estimator import AdvantageEstimator
from planshape.shaping.facade.resources import ProcessResources, pool_scorer
from planshape.shaping.observe.metric_names import MetricNames, metric_name
from planshape.shaping.reward import Scorer, SuccessRule, Weighing, read_query
from planshape.shaping.schedules import PRESETS
from planshape.shaping.scores import SampleScore
from planshape.validators.travelplanner.sample import sample_dir
from pydantic import ValidationError

ROWS = [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines()]
SETTINGS = {"database": "sample", "schedule": "curriculum-8b", "total_steps": 500}
PASSING = next(r for r in ROWS if "<answer>" in r["text"] and r.get("expected_reward", 5.0) == 5.0)


@pytest.fixture(scope="module")
def config() -> ShapingConfig:
    return ShapingConfig.from_mapping(SETTINGS)


@pytest.fixture(scope="module")
def scorer(config) -> Scorer:
    return Scorer.from_config(config)


# --- the reward --------------------------------------------------------------------------------------------------

def test_the_weighing_weighs_by_the_stage_of_the_step():
    weighing = Weighing(PRESETS["curriculum-8b"], {"plugin_part": 2.0})
    checked = {"schema": 1.0, "cs_micro": 1.0, "hard_micro": 0.5, "cs_macro": 1.0, "hard_macro": 0.0, "pass": 0.0,
               "plugin_part": 1.0}
    assert weighing.weigh(checked, 0) == 1.0 + 0.5 + 1.0 + 2.0  # stage 1, and the plugin's own weight
    assert weighing.weigh(checked, 150) == 1.0 + 2.0  # stage 2: the macros and pass
    assert weighing.weigh({**checked, "schema": 0.0}, 0) == 0.0  # the gate multiplies everything
    assert [weighing.max_reward(s) for s in (0, 150, 450)] == [5.0, 3.0, 1.0] and weighing.staged
    columns = {k: np.array([v, 0.0]) for k, v in checked.items()}  # one array per component: carried samples
    assert weighing.weigh(columns, 450).tolist() == [2.0, 0.0]


def test_the_success_rule_by_pass_threshold_and_flag():
    weighing = Weighing(PRESETS["stage2"])
    assert SuccessRule(weighing).of(np.array([3.0, 2.9]), 0).tolist() == [True, False]  # the stage's maximum
    assert SuccessRule(weighing).of(np.array([0.0, 3.0]), 0, np.array([1, 0])).tolist() == [True, False]
    threshold = SuccessRule(weighing, Success(by="threshold", threshold=2.5))
    assert threshold.of(np.array([2.5, 2.4]), 0).tolist() == [True, False]
    assert threshold.one(2.5, passed=False) and not threshold.one(2.4, passed=True)
    flag = SuccessRule(weighing, Success(by="flag", flag="acc"))
    assert flag.flag == "acc" and flag.of(np.zeros(2), 0, np.array([True, False])).tolist() == [True, False]
    with pytest.raises(ValueError, match="pass the trainer's per-sample 'acc' flags"):
        flag.of(np.zeros(2), 0)
    with pytest.raises(ValueError, match=r"success\[0\] is 0.5"):
        flag.of(np.zeros(1), 0, np.array([0.5]))


def test_the_scorer_returns_each_score_finished(scorer):
    scored = scorer.score(PASSING["text"], json.dumps(PASSING["query"]), 150)  # a label as JSON text
    query = read_query(PASSING["query"])
    assert isinstance(scored, SampleScore)
    assert (scored.reward, scored.success, scored.failure, scored.stage, scored.step) == (3.0, True, "", "stage2", 150)
    assert (scored.level, scored.days) == (query.level, query.days) and "f" not in scored.verdicts
    assert scored.watch is not None and scored.official_pass and not scored.exploit  # the monitor is on by default
    assert set(scored.metrics()) == set(scorer.names.sample)
    nothing = scorer.score("I could not finish the plan.", PASSING["query"], 0)
    assert (nothing.reward, nothing.success, nothing.failure) == (0.0, False, NO_ANSWER)
    assert nothing.components == dict.fromkeys(COMPONENTS, 0.0) and nothing.level == query.level
    with pytest.raises(ValueError, match="not JSON"):
        scorer.score(PASSING["text"], "{not json", 0)  # a bad label is configuration


def test_the_one_zero_score_and_a_score_weighed_at_another_step(scorer):
    zero = scorer.unscored(3, TIMEOUT, "too slow", PASSING["query"])
    assert (zero.reward, zero.success, zero.failure, zero.reason, zero.stage) == (0.0, False, TIMEOUT, "too slow",
                                                                                     "stage1")
    assert zero.metrics()[metric_name("failure/timeout")] == 1.0
    assert scorer.unscored(3, reason="x", query="{unreadable").level == ""  # an unreadable query is left out
    with pytest.raises(ValueError, match="unknown failure category"):
        scorer.unscored(0, "late")
    scored = scorer.score(PASSING["text"], PASSING["query"], 0)
    later = scorer.reweigh(scored, 450)
    assert (scored.reward, later.reward, later.stage, later.step) == (5.0, 1.0, "stage3", 450) and later.success


def test_carried_samples_are_weighed_at_the_trainers_step_as_if_scored_there(scorer):
    texts = [r["text"] for r in ROWS]
    at_rollout = [scorer.score(t, r["query"], 0) for t, r in zip(texts, ROWS, strict=True)]
    columns = {name: [scorer.carry.of(s)[name] for s in at_rollout] for name in scorer.carry.columns}
    carried = scorer.carry.weigh(columns, 450)
    direct = [scorer.score(t, r["query"], 450) for t, r in zip(texts, ROWS, strict=True)]
    assert carried.reward.tolist() == [s.reward for s in direct]
    assert carried.success.tolist() == [s.success for s in direct]
    assert carried.metrics[metric_name("reward")].tolist() == [s.reward for s in direct]
    with pytest.raises(ValueError, match="not scored by planshape's rollout side"):
        scorer.carry.weigh({metric_name("reward"): [1.0]}, 0)


def test_the_store_opens_on_first_use_and_an_estimator_only_config_has_none():
    scorer = Scorer.from_config(ShapingConfig.from_mapping(SETTINGS))
    assert scorer._store is None and scorer.store.counts()["flights"] > 0 and scorer._store is not None
    own = Scorer.from_config(ShapingConfig.from_mapping({"success": {"by": "threshold", "threshold": 1},
                                                         "total_steps": 5}))
    with pytest.raises(ConfigError, match="no database"):
        own.store  # noqa: B018 - scoring needs a database


def test_metric_names_by_group():
    names = MetricNames(("pass", "schema"), monitor=False, logged=("core", "advantages"))
    assert names.sample == (metric_name("reward"), metric_name("success"))
    assert names.groups["monitor"] == () and len(names.groups["failures"]) == 2 and names.advantage
    assert MetricNames(("pass",), monitor=True, logged=("core",)).advantage == ()


# --- the estimator, the agent side, the resources, the description ----------------------------------------------

def test_the_estimator_is_the_configured_function_at_the_step(config, scorer):
    part = AdvantageEstimator(config, scorer.success, scorer.names)
    assert part.alpha(0) == 0.1 and part.alpha(500) == pytest.approx(0.05) and not part.uses_anchors
    rollouts = Rollouts.build(["g", "g", "g"], [5.0, 5.0, 0.0], [True, True, False], [[3, 9], [3, 3, 3], [4]])
    expected = planpo(rollouts, alpha=part.alpha(100))
    assert part.estimate(rollouts, 100).per_turn.tolist() == expected.per_turn.tolist()
    mask = torch.tensor([[1, 1, 0, 1, 1]] * 4)
    out = part.advantages(torch.tensor([5.0, 0.0, 5.0, 5.0]), mask, ["a", "a", "b", "b"], 100)
    assert out.success.tolist() == [True, False, True, True]  # read from the scores by the success rule
    assert set(out.stats) == set(scorer.names.advantage) and out.stats[metric_name("alpha")] == part.alpha(100)
    assert bool((out.tokens[mask == 0] == 0).all()) and part.describe()["estimator"] == "planpo"


def test_the_agent_side_opens_the_store_only_for_tools(scorer):
    opened = []

    def store():
        opened.append(1)
        return scorer.store

    agent = AgentSide(store, max_chars=200)
    messages = agent.messages(PASSING["query"])
    assert messages[0]["role"] == "system" and PASSING["query"]["query"] in messages[1]["content"] and not opened
    assert len(agent.tool_schemas) == 7 and agent.prompt_version
    assert agent.tools().call("get_cities", {"state": "nowhere"}).startswith("Error") and opened


def test_the_process_resources_log_and_score_in_workers(config, tmp_path):
    resources = ProcessResources(config.model_copy(update={"log_dir": str(tmp_path)}), lambda: {"what": "header"})
    scored = Scorer.from_config(config).score(PASSING["text"], PASSING["query"], 0)
    resources.log_scores(0, [scored])
    resources.close()
    lines = [json.loads(line) for path in tmp_path.glob("verdicts-*.jsonl") for line in path.read_text().splitlines()]
    assert lines[0]["kind"] == "header" and lines[0]["describe"] == {"what": "header"}
    assert [(r["kind"], r["reward"]) for r in lines[1:]] == [("score", 5.0)]
    worker = pool_scorer(config.model_dump())  # what each scoring process builds: this config's scorer
    assert worker(PASSING["text"], PASSING["query"], 0) == scored


def test_the_description_says_what_will_run_and_why_a_score(config, scorer):
    part = Description(config, scorer, AdvantageEstimator(config, scorer.success, scorer.names), "v-test")
    described = part.describe()
    assert described["prompt_version"] == "v-test" and [s["name"] for s in described["stages"]] == [
        "stage1", "stage2", "stage3"]
    explanation = part.explain(PASSING["text"], PASSING["query"])
    assert explanation.result is not None and explanation.result.final_pass


def test_a_label_text_is_read_once_and_a_bad_one_each_time():
    """Every sample of a GRPO group carries the same label text: it is read once and the frozen ``Query``
    shared; a different text is read on its own, and one that cannot be read raises every time (nothing cached)."""
    text = json.dumps(PASSING["query"])
    first = read_query(text)
    assert read_query(text[:1] + text[1:]) is first  # an equal text, not the same object
    assert read_query(json.loads(text)) == first
    other = dict(PASSING["query"], budget=PASSING["query"]["budget"] + 1)
    assert read_query(json.dumps(other)).budget == first.budget + 1 and read_query(text).budget == first.budget
    for _ in range(2):
        with pytest.raises(ValueError, match="not JSON"):
            read_query("{not json")
    with pytest.raises(ValidationError):
        first.budget = 1.0  # shared between samples, so it must stay as read
