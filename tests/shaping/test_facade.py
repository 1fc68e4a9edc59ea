"""The facade: an adapter needs nothing else; its numbers are the core's; configuration errors raise,
model output does not."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from planshape.shaping.advantages import Rollouts, planpo
from planshape.shaping.facade import PREFIX, Shaper, gold_answer, read_queries
from planshape.shaping.reward import Scorer, read_query
from planshape.shaping.schedules import PRESETS, LinearDecay
from planshape.validators.travelplanner.checks.modes import STRICT, Mode
from planshape.validators.travelplanner.plan.formats import from_upstream, gate
from planshape.validators.travelplanner.sample import sample_dir

from . import example_adapter

ROOT = Path(__file__).resolve().parents[2]
ROWS = [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines()]
SETTINGS = {"database": "sample", "schedule": "curriculum-8b", "total_steps": 500}


@pytest.fixture(scope="module")
def shaper():
    return Shaper.from_mapping(SETTINGS)


def test_example_adapter_imports_only_the_facade():
    tree = ast.parse(Path(example_adapter.__file__).read_text())
    modules = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert {m for m in modules if m.startswith("planshape")} == {"planshape.shaping.facade"}


def test_example_adapter_loop_gives_the_cores_numbers():
    logs = example_adapter.train(SETTINGS, ROWS, steps=2)
    store_scorer = Scorer(Shaper.from_mapping(SETTINGS).scorer.store, "strict", "curriculum-8b")
    for log in logs:
        step = log["step"]
        scored = [store_scorer.score(r["text"], r["query"], step) for r in ROWS]
        assert [s.reward for s in log["scores"]] == [s.reward for s in scored]
        rollouts = Rollouts.build([r["group"] for r in ROWS], [s.reward for s in scored],
                                  [s.components["pass"] == 1.0 for s in scored], [r["turn_tokens"] for r in ROWS])
        expected = planpo(rollouts, alpha=LinearDecay(0.1, 0.05, 500)(step))
        mask = log["mask"].bool()
        got = [log["advantages"][i][mask[i]] for i in range(len(ROWS))]
        owner = np.repeat(np.arange(len(ROWS)), rollouts.turns)
        for i, row in enumerate(ROWS):
            want = np.repeat(expected.per_turn[owner == i], row["turn_tokens"])
            torch.testing.assert_close(got[i], torch.tensor(want, dtype=torch.float32))
        assert (log["advantages"][~mask] == 0).all()
        assert log["stats"][f"{PREFIX}alpha"] == pytest.approx(LinearDecay(0.1, 0.05, 500)(step))
        assert log["metrics"][f"{PREFIX}pass"] == pytest.approx(np.mean([s.components["pass"] for s in scored]))
        assert log["stats"][f"{PREFIX}success_rate"] == pytest.approx(0.5)
        assert log["stats"][f"{PREFIX}groups_multi_success"] == 1.0
        assert log["stats"][f"{PREFIX}turns_mean"] == pytest.approx(np.mean([len(r["turn_tokens"]) for r in ROWS]))


def test_metrics_have_one_fixed_key_set(shaper):
    scored = shaper.score_batch([r["text"] for r in ROWS] + [None, 12, "<answer>[{}]</answer>"],
                                [r["query"] for r in ROWS] + [ROWS[0]["query"]] * 3, step=0)
    assert {tuple(s.metrics()) for s in scored} == {shaper.metric_names}
    for s in scored:
        failure = s.metrics()
        counted = [k for k in shaper.metric_names if k.startswith(f"{PREFIX}failure/") and failure[k] == 1.0]
        assert counted == [f"{PREFIX}failure/{s.failure or 'pass'}"]
    assert [s.failure for s in scored[-3:]] == ["no_answer", "no_answer", "schema"]


def test_success_from_rewards_is_the_final_pass_at_every_stage(shaper, train, train_records, shared_dir):
    """The estimator sees only rewards (VERL): the stage's maximum reward must mean exactly the final pass."""
    real = Shaper.from_mapping({**SETTINGS, "database": str(shared_dir / "database")})
    texts = []
    for _, plan in train[:15]:
        structured = from_upstream(plan)
        texts.append(f"<answer>{json.dumps(structured)}</answer>")
        broken = json.loads(json.dumps(structured))
        broken[0]["dinner"] = {"name": "Nowhere Diner", "city": "Atlantis"}
        texts.append(f"<answer>{json.dumps(broken)}</answer>")
    records = [r for r in train_records[:15] for _ in range(2)]
    for name in PRESETS:
        probe = Shaper.from_mapping({**SETTINGS, "database": str(shared_dir / "database"), "schedule": name})
        for step in (0, 99, 100, 399, 400, 1000):
            scored = probe.score_batch(texts, records, step)
            flags = probe.success_from_rewards([s.reward for s in scored], step)
            assert flags.tolist() == [s.success for s in scored]
            assert sum(flags) == 15  # each gold plan passes, each broken copy fails
    assert real.max_reward(0) == 5.0 and real.max_reward(100) == 3.0 and real.max_reward(400) == 1.0


def test_threshold_success(shaper):
    by_threshold = Shaper.from_mapping({**SETTINGS, "success": {"by": "threshold", "threshold": 2.5}})
    scored = by_threshold.score_batch([r["text"] for r in ROWS], [r["query"] for r in ROWS], 0)
    assert [s.success for s in scored] == [s.reward >= 2.5 for s in scored]
    assert by_threshold.success_from_rewards([s.reward for s in scored], 0).tolist() == [s.success for s in scored]


def test_grpo_through_the_facade_has_no_alpha_and_equals_the_core():
    from planshape.shaping.advantages import grpo

    shaper = Shaper.from_mapping({"database": "sample", "estimator": "grpo", "estimator_options": {"eps": 1e-4}})
    mask = example_adapter.mask_of([r["turn_tokens"] for r in ROWS])
    rewards = [float(i % 3) for i in range(len(ROWS))]
    out = shaper.advantages(torch.tensor(rewards), mask, [r["group"] for r in ROWS], step=7)
    expected = grpo(Rollouts.build([r["group"] for r in ROWS], rewards, [False] * len(ROWS),
                                   [r["turn_tokens"] for r in ROWS]), eps=1e-4)
    assert shaper.alpha(7) == 0.0 and out.stats[f"{PREFIX}alpha"] == 0.0
    np.testing.assert_allclose(out.per_trajectory, expected.trajectory)


def test_configuration_errors_raise_model_output_does_not(shaper):
    for bad_step in (-1, 1.5, "3", None, True):
        with pytest.raises(ValueError, match="step must be an int"):
            shaper.score(ROWS[0]["text"], ROWS[0]["query"], bad_step)
    with pytest.raises(ValueError, match="query text is not JSON"):
        shaper.score(ROWS[0]["text"], "{not json", 0)
    with pytest.raises(ValueError, match="a query is a TravelPlanner record"):
        shaper.score(ROWS[0]["text"], 42, 0)
    with pytest.raises(ValueError, match="2 outputs but 1 queries"):
        shaper.score_batch(["a", "b"], [ROWS[0]["query"]], 0)
    assert shaper.score(ROWS[0]["text"], json.dumps(ROWS[0]["query"]), 0).reward == 5.0
    for junk in ("", "<answer>", "<answer>null</answer>", "<answer>" + "[" * 5000 + "</answer>", b"\xff", object()):
        scored = shaper.score(junk, ROWS[0]["query"], 0)
        assert scored.reward == 0.0 and scored.failure in ("no_answer", "schema") and scored.reason


def test_custom_mode_object_is_used_not_reduced_to_its_name(sample_store):
    """A configuration object must be honoured; before, every sample silently scored 0 with failure 'error'."""
    lenient = Mode("lenient-repeats", **{**{f: getattr(STRICT, f) for f in STRICT.__dataclass_fields__
                                            if f != "name"}, "exact_repeats": True})
    scorer = Scorer(sample_store, mode=lenient)
    scored = scorer.score(ROWS[0]["text"], ROWS[0]["query"])
    result, _ = scorer.check(scorer.read(ROWS[0]["text"]).plan, read_query(ROWS[0]["query"]))
    assert scored.failure == "" and scored.reward == 5.0 and result.mode == "lenient-repeats"
    with pytest.raises(ValueError, match="unknown mode 'lenient'"):
        Scorer(sample_store, mode="lenient")


def test_tools_prompt_and_queries(shaper, tmp_path):
    tools = shaper.tools()
    cities = tools.call("get_cities", {"state": "Eastvale"})
    assert "Lindenfield" in cities and "Marlow Springs" in cities and "Harborview" not in cities
    assert tools.max_chars == 8192 and {s["function"]["name"] for s in shaper.tool_schemas} >= {"calculator"}
    assert tools.call("calculator", {"expression": "2 * (3 + 4)"}) == "14"
    messages = shaper.messages(ROWS[0]["query"] | {"query": "Plan a trip."})
    assert [m["role"] for m in messages] == ["system", "user"] and messages[1]["content"] == "Plan a trip."
    system = messages[0]["content"]
    assert "<answer>" in system and '"flight_number"' in system and "search_flights" not in system
    example = json.loads(system.split("Example day: ", 1)[1])
    assert gate(json.dumps([example])).ok  # the prompt's example follows the published schema
    assert "search_flights" in shaper.messages({"query": "x"}, include_tools=True)[0]["content"]
    with pytest.raises(ValueError, match="no 'query' text"):
        shaper.messages({"org": "A"})
    bad = tmp_path / "q.jsonl"
    bad.write_text(json.dumps(ROWS[0]["query"]) + "\n" + json.dumps({"org": "A"}) + "\n")
    with pytest.raises(ValueError, match="row 2"):
        read_queries(bad)
    sample_queries = read_queries("sample")  # the queries of database "sample", for smoke runs
    assert len(sample_queries) == 8 and sample_queries[0] == ROWS[0]["query"]


def test_describe_says_what_will_run(shaper):
    info = shaper.describe()
    assert [(s["from_step"], s["until_step"]) for s in info["stages"]] == [(0, 100), (100, 400), (400, None)]
    assert info["alpha"] == {"init": 0.1, "final": 0.05, "steps": 500}
    assert info["estimator"] == "planpo" and info["mode"] == "strict" and info["step_convention"].startswith("optim")


def test_no_import_circle_and_the_public_face():
    code = ("import sys; import planshape.shaping.builtin; "
            "assert 'planshape.shaping.reward' not in sys.modules, 'builtin pulls in reward'; "
            "from planshape.shaping import Shaper, ShapingConfig, ConfigError, hookimpl; "
            "from planshape.validators.travelplanner.store.sqlite import open_store; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
    for package in ("shaping", "validators", "adapters"):
        assert (ROOT / package / "py.typed").is_file()


def test_a_querys_gold_plan_as_an_answer(shared_dir, train_records):
    """No ``ast.literal_eval`` of ``annotated_plan`` by hand: the gold answer scores full marks in both modes."""
    for mode in ("official", "strict"):
        shaper = Shaper.from_mapping({"database": str(shared_dir / "database"), "estimator": "grpo", "mode": mode})
        for record in train_records[:10]:
            scored = shaper.score(gold_answer(record), record, 0)
            assert (scored.reward, scored.failure) == (5.0, ""), record["query"]
    with pytest.raises(ValueError, match="no annotated_plan"):
        gold_answer({"query": "x"})
