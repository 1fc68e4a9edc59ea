"""The staged reward bar: on real TravelPlanner queries, every (plan, schedule, step) pair's reward equals its paper's
formula, r = r_schema · Σ_k λ_k(step) · c_k, with the components counted from the checks' verdicts in plain loops
and the weights written out from the papers' own tables (not read from planshape):

* Planner-R1 (Zhu et al., arXiv 2509.25779): stage 1 [1,1,1,1,1], stage 2 [0,0,1,1,1], stage 3 [0,0,0,0,1] over
  (cs_micro, hard_micro, cs_macro, hard_macro, pass); the 8B curriculum switches at steps 100 and 400, the 32B at
  50 and 400 (half-open);
* Agent-STAR (Wu et al., arXiv 2603.21972): success (sparse), the two macro scores (semi-sparse), and the SUM of
  the five per-plan scores of its released evaluator (dense; docs/schedules.md says what is cited and what read).

The plans: the 45 train gold plans (every check passes) and five breakages of each (a restaurant repeated within a
city fails a commonsense check; an invented restaurant fails the sandbox, so no hard check runs; a meal in another
city fails the current-city check; the same gold plan under a budget of 1 fails the budget alone, a partial hard
micro; no answer at all, the gate closed), at every stage's first and last step."""

from __future__ import annotations

import json

import pytest
from planshape.shaping import Shaper
from planshape.shaping.reward import Scorer
from planshape.validators.travelplanner.checks.verdicts import Status
from planshape.validators.travelplanner.plan.formats import from_upstream

LAMBDA = {  # (cs_micro, hard_micro, cs_macro, hard_macro, pass), from the papers' tables
    "planner-r1 stage 1": (1, 1, 1, 1, 1), "planner-r1 stage 2": (0, 0, 1, 1, 1), "planner-r1 stage 3": (0, 0, 0, 0, 1),
    "agent-star success": (0, 0, 0, 0, 1), "agent-star macro": (0, 0, 1, 1, 0), "agent-star sum": (1, 1, 1, 1, 1),
}
SCHEDULES = {  # name -> [(first step, last step, weights)] of its stages
    "stage1": [(0, 10_000, "planner-r1 stage 1")],
    "stage2": [(0, 10_000, "planner-r1 stage 2")],
    "stage3": [(0, 10_000, "planner-r1 stage 3")],
    "curriculum-8b": [(0, 99, "planner-r1 stage 1"), (100, 399, "planner-r1 stage 2"),
                      (400, 10_000, "planner-r1 stage 3")],
    "curriculum-32b": [(0, 49, "planner-r1 stage 1"), (50, 399, "planner-r1 stage 2"),
                       (400, 10_000, "planner-r1 stage 3")],
    "agent-star-success": [(0, 10_000, "agent-star success")],
    "agent-star-macro": [(0, 10_000, "agent-star macro")],
    "agent-star-sum": [(0, 10_000, "agent-star sum")],
}


def formula(result, gated: bool, weights: tuple[int, ...]) -> float:
    """r = r_schema · (λ1·cs_micro + λ2·hard_micro + λ3·cs_macro + λ4·hard_macro + λ5·pass), the rates over the
    applicable checks; hard checks that did not run count as failed (the official metrics' convention)."""
    if not gated:
        return 0.0
    cs = [v.status is Status.PASS for v in result.commonsense.values() if v.status is not Status.NA]
    cs_micro = sum(cs) / len(cs) if cs else 0.0
    if result.hard is None:
        hard_micro, ran = 0.0, False
    else:
        hard = [v.status is Status.PASS for v in result.hard.values() if v.status is not Status.NA]
        hard_micro, ran = (sum(hard) / len(hard) if hard else 1.0), True
    cs_macro = 1.0 if result.delivered and cs_micro == 1.0 else 0.0
    hard_macro = 1.0 if ran and hard_micro == 1.0 else 0.0
    passed = cs_macro * hard_macro
    return sum(w * c for w, c in zip(weights, (cs_micro, hard_micro, cs_macro, hard_macro, passed), strict=True))


def _texts(train) -> list[tuple[object, str]]:
    """(query, model text) pairs: each gold plan and its breakages."""
    out: list[tuple[object, str]] = []
    for i, (query, plan) in enumerate(train):
        days = from_upstream(plan)
        gold = f"<answer>{json.dumps(days)}</answer>"
        out += [(query, gold), (query.model_copy(update={"budget": 1.0}), gold), (query, "I could not finish it.")]
        meals = [(d, m) for d, day in enumerate(days) for m in ("breakfast", "lunch", "dinner")
                 if isinstance(day.get(m), dict)]
        same_city = [(a, b) for a in meals for b in meals if a < b and days[a[0]][a[1]].get("city") ==
                     days[b[0]][b[1]].get("city")]
        if same_city:  # the same restaurant twice in one city
            (d0, m0), (d1, m1) = same_city[0]
            repeated = json.loads(json.dumps(days))
            repeated[d1][m1] = repeated[d0][m0]
            out.append((query, f"<answer>{json.dumps(repeated)}</answer>"))
        if meals:
            d, m = meals[0]
            invented = json.loads(json.dumps(days))
            invented[d][m] = {"name": "Nowhere Diner", "city": days[d][m].get("city")}
            out.append((query, f"<answer>{json.dumps(invented)}</answer>"))
            moved = json.loads(json.dumps(days))
            moved[d][m] = {**moved[d][m], "city": train[(i + 1) % len(train)][0].dest}
            out.append((query, f"<answer>{json.dumps(moved)}</answer>"))
    return out


@pytest.fixture(scope="module")
def scored(memory_database, train):
    """Each text scored once per schedule and step (the reward path a trainer calls), with its verdicts (the
    reward room's own reading and checks of the text: ``Scorer.read`` then ``Scorer.check``, once per text)."""
    texts = _texts(train)
    out = []
    verdicts: dict[int, object] = {}
    for name, stages in SCHEDULES.items():
        scorer = Scorer(memory_database, mode="strict", schedule=name)
        steps = sorted({s for first, last, _ in stages for s in (first, last)})
        for step in steps:
            weights = next(LAMBDA[w] for first, last, w in stages if first <= step <= last)
            for k, (query, text) in enumerate(texts):
                if k not in verdicts:
                    plan = scorer.read(text).plan
                    verdicts[k] = None if plan is None else scorer.check(plan, query)[0]
                out.append((name, step, weights, scorer.score(text, query, step), verdicts[k]))
    return out


def test_every_pair_equals_its_papers_formula(scored):
    kinds = set()
    for name, step, weights, result, checked in scored:
        gated = result.components["schema"] == 1.0
        want = formula(checked, gated, weights) if checked is not None else 0.0
        assert result.reward == pytest.approx(want, abs=1e-12), (name, step, result.failure)
        kinds.add(result.failure.split(":")[0])
        if checked is not None and checked.hard is None:
            kinds.add("hard not run")
        if 0.0 < result.components["hard_micro"] < 1.0:
            kinds.add("partial hard")
    assert len(scored) == 6_480  # 270 texts x 24 (schedule, step) pairs: see the module docstring
    # the breakages reach every kind of failure: a commonsense check, the sandbox (no hard check runs), the budget
    # alone (a partial hard micro), the gate; and the gold plans pass
    assert kinds >= {"", "commonsense", "hard not run", "hard", "partial hard", "no_answer"}


def test_success_is_the_maximum_reward_under_agent_stars_settings(scored):
    """What an estimator reads from the reward alone (VERL): the stage's maximum exactly when the plan passes."""
    for name in ("agent-star-success", "agent-star-macro", "agent-star-sum"):
        shaper = Shaper.from_mapping({"database": "sample", "schedule": name, "total_steps": 500})
        for schedule, step, weights, result, _ in scored:
            if schedule == name:
                flags = shaper.success_from_rewards([result.reward], step)
                assert bool(flags[0]) == (result.components["pass"] == 1.0), (name, result.failure)
                assert shaper.max_reward(step) == sum(weights)


def test_their_metrics_are_every_schedules():
    names = {Shaper.from_mapping({"database": "sample", "schedule": s, "total_steps": 500}).metric_names
             for s in SCHEDULES}
    assert len(names) == 1
