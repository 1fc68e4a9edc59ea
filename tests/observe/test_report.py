"""``planshape report`` on a synthetic training log built from the 45 train gold plans: exploits injected at a
rising rate, broken plans at a falling rate, no-answers early, through the real facade (scores, monitor,
advantages, verdict log). Every figure's data series is read back from the figure and compared with numbers
computed directly, outside the log and the report."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from planshape.shaping.cli import main
from planshape.shaping.facade import Shaper
from planshape.shaping.observe.monitor import Monitor
from planshape.shaping.observe.report.data import summarise
from planshape.shaping.observe.verdict_log import CHECK_KEYS, verdict_code
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.plan.formats import from_upstream
from planshape.validators.travelplanner.query import Query, gold_plan

pytest.importorskip("matplotlib")
torch = pytest.importorskip("torch")

STEPS = 12
STAGES = {"name": "test-curriculum", "stages": [{"start": 0, "weights": "stage1"}, {"start": 4, "weights": "stage2"},
                                                 {"start": 8, "weights": "stage3"}]}


def _bench_monitor():
    """``benchmarks/bench_monitor.py``, by path: its exploit (a meal named by a fragment of its restaurant's name,
    quirk 3) is the one this log injects."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_monitor.py"
    spec = importlib.util.spec_from_file_location("bench_monitor", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench_monitor()
exploit_variant = BENCH.fragment  # official passes, strict fails, in the structured answer format
broken_variant = BENCH.repeat  # fails both modes: a dinner at the day's lunch restaurant


def repeat_variant(plan):
    plan = copy.deepcopy(plan)
    meals = [(day, meal) for day in plan for meal in ("breakfast", "lunch", "dinner") if day.get(meal, "-") != "-"]
    if len(meals) >= 2:
        (first, m1), (second, m2) = meals[0], meals[1]
        second[m2] = first[m1] + " "
    return plan


def answer(plan) -> str:
    return "<answer>" + json.dumps(from_upstream(plan)) + "</answer>"


def counts(step: int, n: int) -> tuple[int, int, int]:
    """(exploits, broken plans, no answers) at ``step``: exploits rise, breakage falls, no-answers stop."""
    frac = step / (STEPS - 1)
    return round(0.5 * n * frac), round(0.3 * n * (1 - frac)), 3 if step < 4 else 0


@pytest.fixture(scope="module")
def run(tmp_path_factory, shared_dir, train_records, memory_database):
    """The synthetic run: its log directory and everything computed directly along the way."""
    queries = [Query.from_record(r) for r in train_records]
    gold = [gold_plan(r) for r in train_records]
    monitor = Monitor("strict")
    variants = {}
    for i, (q, p) in enumerate(zip(queries, gold, strict=True)):
        for make in (exploit_variant, repeat_variant):
            if monitor.check(make(p), q, memory_database)[1].exploit:
                variants[i] = make(p)
                break
    exploitable = sorted(variants)
    breakable = [i for i, (q, p) in enumerate(zip(queries, gold, strict=True))
                 if not check_plan(broken_variant(p), q, memory_database, "official").final_pass]
    assert len(exploitable) >= 30 and len(breakable) >= 30
    log_dir = tmp_path_factory.mktemp("run") / "log"
    shaper = Shaper.from_mapping({"database": str(shared_dir / "database"), "schedule": STAGES,
                                  "total_steps": STEPS, "log_dir": str(log_dir)})
    n = len(queries)
    expect: dict[str, list] = {k: [] for k in ("exploit", "official", "strict", "reward", "codes", "cs_macro",
                                               "hard_macro", "turns", "a_e", "a_s", "lengths", "kinds", "cells",
                                               "logged")}
    for step in range(STEPS):
        n_exploit, n_broken, n_none = counts(step, n)
        rot = [(i + 7 * step) % n for i in range(n)]
        exploit_ids = [i for i in rot if i in exploitable][:n_exploit]
        broken_ids = [i for i in rot if i in breakable and i not in exploit_ids][:n_broken]
        none_ids = [i for i in rot if i not in exploit_ids and i not in broken_ids][:n_none]
        plans, texts, kinds = [], [], []
        for i in range(n):
            kind = "exploit" if i in exploit_ids else "broken" if i in broken_ids else "none" if i in none_ids \
                else "gold"
            plan = variants[i] if kind == "exploit" else broken_variant(gold[i]) if kind == "broken" else gold[i]
            plans.append(plan)
            kinds.append(kind)
            texts.append("I give up." if kind == "none" else answer(plan))
        scores = shaper.score_batch(texts, train_records, step)
        # direct numbers, outside the log: the strict verdicts and the kinds injected
        expect["kinds"].append(kinds)
        expect["exploit"].append(n_exploit / n)
        expect["official"].append(sum(k in ("gold", "exploit") for k in kinds) / n)
        expect["strict"].append(sum(k == "gold" for k in kinds) / n)
        expect["reward"].append(np.mean([s.reward for s in scores]))
        expect["cs_macro"].append(np.mean([s.components["cs_macro"] for s in scores]))
        expect["hard_macro"].append(np.mean([s.components["hard_macro"] for s in scores]))
        expect["codes"].append([verdict_code(check_plan(p, q, memory_database, "strict"))
                                for p, q, k in zip(plans, queries, kinds, strict=True) if k != "none"])
        expect["cells"].append([(q.level, q.days, s.components["pass"]) for q, s in zip(queries, scores, strict=True)])
        # advantages: groups of 3, fewer turns as training goes on
        turns = [max(1, 6 - step // 3) + i % 2 for i in range(n)]
        width = 4 * max(turns) + 1
        mask = torch.zeros(n, width)
        for i, t in enumerate(turns):
            for k in range(t):
                mask[i, 4 * k + 1: 4 * k + 2 + (i + k) % 3] = 1  # 1-3 tokens per turn, then a tool token
        adv = shaper.advantages(torch.tensor([s.reward for s in scores]), mask, [i // 3 for i in range(n)], step,
                                success=[s.success for s in scores])
        expect["turns"].append(np.mean(turns))
        expect["a_e"].append((adv.per_trajectory.mean(), adv.per_trajectory.std()))
        expect["a_s"].append((adv.length_term.mean(), adv.length_term.std()))
        expect["lengths"].append(adv.turn_lengths.mean())
        expect["logged"].append({**shaper.metric_means(scores), **adv.stats})  # what a trainer logs this step
    shaper.close()
    return log_dir, expect, n


def _lines(fig):
    return {line.get_gid(): line for ax in fig.axes for line in ax.get_lines() if line.get_gid()}


def test_the_log_holds_every_sample(run):
    log_dir, expect, n = run
    summary = summarise(log_dir, progress=False)
    assert list(summary.step_numbers()) == list(range(STEPS)) == list(summary.step_numbers("advantage"))
    assert all(summary.steps[k].samples == n and summary.steps[k].trajectories == n for k in range(STEPS))
    assert summary.skipped == 0


def test_failure_mode_figure_series(run):
    from planshape.shaping.observe.report.figures import failure_modes

    log_dir, expect, _ = run
    summary = summarise(log_dir, progress=False)
    lines = _lines(failure_modes(summary))
    for j, key in enumerate(CHECK_KEYS):
        ran = [[c for c in codes if c[j] != "-"] for codes in expect["codes"]]
        want = [np.mean([c[j] == "f" for c in r]) for r in ran]
        np.testing.assert_allclose(lines[key].get_ydata(), want, err_msg=key)
        np.testing.assert_array_equal(lines[key].get_xdata(), np.arange(STEPS))
    not_run = [np.mean([c[8:] == "-----" for c in codes]) for codes in expect["codes"]]
    np.testing.assert_allclose(lines["hard_not_run"].get_ydata(), not_run)
    assert not_run[0] == 0 and not_run[-1] > 0.45  # the exploits fail Within Sandbox in strict
    # the injected story: restaurant repeats fall, strict's sandbox failures (the exploits) rise
    restaurants = lines["is_valid_restaurants"].get_ydata()
    sandbox = lines["is_valid_information_in_sandbox"].get_ydata()
    assert restaurants[0] > 0.25 and restaurants[-1] == 0
    assert sandbox[0] == 0 and sandbox[-1] > 0.45
    assert {lines[f"stage:{s}"].get_xdata()[0] for s in ("stage2", "stage3")} == {4, 8}


def test_group_reward_and_exploit_figure_series(run):
    from planshape.shaping.observe.report.figures import exploit, failure_groups, reward

    log_dir, expect, n = run
    summary = summarise(log_dir, progress=False)
    lines = _lines(failure_groups(summary))
    np.testing.assert_allclose(lines["commonsense"].get_ydata(), 1 - np.array(expect["cs_macro"]))
    np.testing.assert_allclose(lines["hard"].get_ydata(), 1 - np.array(expect["hard_macro"]))
    np.testing.assert_allclose(lines["failure:no_answer"].get_ydata(), [counts(s, n)[2] / n for s in range(STEPS)])
    np.testing.assert_allclose(lines["failure:pass"].get_ydata(), expect["strict"])
    np.testing.assert_allclose(lines["failure:checks"].get_ydata(), 1 - np.array(expect["strict"])
                               - [counts(s, n)[2] / n for s in range(STEPS)])
    lines = _lines(reward(summary))
    np.testing.assert_allclose(lines["reward"].get_ydata(), expect["reward"], rtol=1e-6)
    assert {"schema", "cs_micro", "hard_micro", "cs_macro", "hard_macro", "pass"} <= set(lines)
    assert sorted(g for g in lines if g.startswith("stage:")) == ["stage:stage2", "stage:stage3"]
    lines = _lines(exploit(summary))
    np.testing.assert_allclose(lines["exploit"].get_ydata(), expect["exploit"])
    assert lines["exploit"].get_ydata()[0] == 0 and lines["exploit"].get_ydata()[-1] >= 0.45  # rising
    assert np.all(np.diff(lines["exploit"].get_ydata()) >= 0)
    np.testing.assert_allclose(lines["official_pass"].get_ydata(), expect["official"])
    np.testing.assert_allclose(lines["strict_pass"].get_ydata(), expect["strict"])
    rules = {g for g in lines if g.startswith("exploit/")}
    assert rules <= {"exploit/substring_match", "exploit/exact_repeats"} and "exploit/substring_match" in rules
    total = sum(lines[g].get_ydata() for g in rules)
    np.testing.assert_allclose(total, expect["exploit"])  # one rule per injected exploit


def test_planpo_figure_series(run):
    from planshape.shaping.observe.report.figures import planpo

    log_dir, expect, _ = run
    lines = _lines(planpo(summarise(log_dir, progress=False)))
    np.testing.assert_allclose(lines["turns_mean"].get_ydata(), expect["turns"])
    np.testing.assert_allclose(lines["adv_e_mean"].get_ydata(), [m for m, _ in expect["a_e"]], atol=1e-5)
    np.testing.assert_allclose(lines["adv_e_std"].get_ydata(), [s for _, s in expect["a_e"]], atol=1e-5)
    np.testing.assert_allclose(lines["adv_s_std"].get_ydata(), [s for _, s in expect["a_s"]], atol=1e-5)
    np.testing.assert_allclose(lines["turn_tokens_mean"].get_ydata(), expect["lengths"])
    assert lines["turns_mean"].get_ydata()[0] > lines["turns_mean"].get_ydata()[-1]
    assert np.all(lines["adv_s_std"].get_ydata() > 0)  # turn lengths differ among successes


def test_final_pass_figure_data(run):
    from planshape.shaping.observe.report.figures import final_pass

    log_dir, expect, _ = run
    fig = final_pass(summarise(log_dir, progress=False))
    image = next(im for ax in fig.axes for im in ax.get_images() if im.get_gid() == "final_pass")
    cells = expect["cells"][-1]  # 12 steps: the final tenth is the last step
    levels = [lv for lv in ("easy", "medium", "hard") if any(c[0] == lv for c in cells)]
    days = sorted({c[1] for c in cells})
    want = np.array([[np.mean([p for lv, d, p in cells if (lv, d) == (level, day)]) for day in days]
                     for level in levels])
    np.testing.assert_allclose(np.asarray(image.get_array()), want)


def test_cli_report_writes_every_figure_and_one_page(run, tmp_path, capsys):
    log_dir, _, _ = run
    assert main(["report", str(log_dir), "-o", str(tmp_path / "out")]) == 0
    names = {"failure_modes", "failure_groups", "reward", "exploit", "planpo", "final_pass"}
    assert {p.stem for p in (tmp_path / "out").glob("*.png")} == names
    for name in names:
        assert (tmp_path / "out" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (tmp_path / "out" / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(names) and "<link" not in page and "src='http" not in page
    out = capsys.readouterr().out
    assert "exploit rate" in out and "most failed checks" in out


def test_the_report_and_the_trainers_log_use_the_same_names_and_numbers(run, tmp_path):
    """A dashboard built on a trainer's log reads the report's ``metrics.csv``: same names, same values."""
    import csv

    from ..adapters.metric_keys import expected_keys

    log_dir, expect, _ = run
    assert main(["report", str(log_dir), "-o", str(tmp_path / "out")]) == 0
    with (tmp_path / "out" / "metrics.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["step"]) for r in rows] == list(range(STEPS))
    names = set(rows[0]) - {"step"}
    assert names <= expected_keys()  # only names a trainer logs
    for row, logged in zip(rows, expect["logged"], strict=True):
        for name in names:
            assert float(row[name]) == pytest.approx(logged[name], abs=2e-6), name
        # what the report leaves out (a failure category or exploit rule never seen) the trainer logs as 0
        assert all(logged[name] == 0.0 for name in set(logged) - names)
    core = {"planshape/reward", "planshape/success", "planshape/pass", "planshape/official_pass",
            "planshape/strict_pass", "planshape/exploit", "planshape/alpha", "planshape/adv_e_std",
            "planshape/adv_s_std", "planshape/turn_tokens_mean", "planshape/groups_multi_success"}
    assert core <= names


def test_report_errors_are_one_line(tmp_path, capsys):
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "o")]) == 2
    assert "no verdict log files" in capsys.readouterr().err


def test_evaluate_plots_per_constraint(tmp_path):
    from planshape.shaping.observe.report.figures import submission_figures
    from planshape.validators.travelplanner import sample
    from planshape.validators.travelplanner.evaluation.report import evaluate_all
    from planshape.validators.travelplanner.evaluation.submission import read_submission
    from planshape.validators.travelplanner.query import load_queries
    from planshape.validators.travelplanner.store.database import load_database

    assert main(["evaluate", "--plots", str(tmp_path), "--no-progress"]) == 0
    assert {p.name for p in tmp_path.iterdir()} == {"per_constraint.png", "final_pass.png", "evaluation.html"}
    report = evaluate_all(read_submission(sample.sample_plans()), load_queries(sample.sample_queries()),
                          load_database(sample.sample_database()), "official", progress=False)
    fig = submission_figures(report)["per_constraint"]
    bars: dict[str, list] = {}
    for patch in fig.axes[0].patches:
        bars.setdefault(patch.get_gid(), []).append(patch.get_width())
    for j, key in enumerate(CHECK_KEYS):
        row = report["per_constraint"][key]
        assert bars["fail"][j] == pytest.approx(row["fail"] / sum(row.values()))
        assert bars["pass"][j] == pytest.approx(row["pass"] / sum(row.values()))


def test_a_short_run_fills_the_x_axis(tmp_path):
    """A 16-step run of the 8B curriculum (stages at 100 and 400) is drawn over its 16 steps: the stages it never
    reached add no boundary that stretches the axis."""
    from planshape.shaping.observe.report import figures

    from tests.stall_probe import sample_rows

    rows = sample_rows()
    shaper = Shaper.from_mapping({"database": "sample", "schedule": "curriculum-8b", "total_steps": 500,
                                  "log_dir": str(tmp_path / "log")})
    for step in range(16):
        shaper.score_batch([r["text"] for r in rows], [r["query"] for r in rows], step)
    shaper.close()
    summary = summarise(tmp_path / "log", progress=False)
    for name in ("failure_modes", "reward", "exploit"):
        fig = getattr(figures, name)(summary)
        for ax in fig.axes:
            if ax.get_lines():
                assert ax.get_xlim()[1] < 20, (name, ax.get_xlim())
        assert not [g for g in _lines(fig) if g.startswith("stage:")]
