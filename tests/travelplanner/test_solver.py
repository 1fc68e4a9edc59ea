"""The solver (``validators/travelplanner/solver``): witnesses that pass strict, optima that are optima, and reasons
that are proofs. The train queries' gold plans pass strict, so the cheapest plan costs at most the gold plan's."""

from __future__ import annotations

import csv
import shutil

import pytest

pytest.importorskip("ortools", reason="the solver needs OR-Tools (scripts/setup.sh installs planshape[solver])")

from planshape.validators.travelplanner.checks.hard import total_cost  # noqa: E402
from planshape.validators.travelplanner.checks.modes import STRICT  # noqa: E402
from planshape.validators.travelplanner.checks.trip import Trip  # noqa: E402
from planshape.validators.travelplanner.checks.verdicts import Status, check_plan  # noqa: E402
from planshape.validators.travelplanner.solver import solve  # noqa: E402
from planshape.validators.travelplanner.store.database import FILES, load_database  # noqa: E402


def _strict_failures(plan, query, store) -> list[str]:
    result = check_plan(plan, query, store, mode="strict")
    verdicts = {**result.commonsense, **(result.hard or {})}
    return [f"{k}: {v.reason}" for k, v in verdicts.items() if v.status is Status.FAIL] + \
        ([] if result.hard is not None else [result.note])


def test_every_train_query_is_solved_at_most_at_the_gold_plans_cost(solved_train, memory_database):
    for i, (query, gold, solution) in enumerate(solved_train):
        assert solution.status == "solved", (i, solution.reason, solution.failures)
        assert _strict_failures(solution.plan, query, memory_database) == [], i
        gold_cost = total_cost(Trip(query, gold[: query.days], memory_database, STRICT))
        assert solution.optimal and solution.cost <= gold_cost + 1e-9 <= query.budget + 1e-9, (i, solution.cost)


def test_the_structured_answer_is_the_plan(solved_train):
    from planshape.validators.travelplanner import gate

    for _, _, solution in solved_train[:10]:
        assert gate(solution.answer_text().removeprefix("<answer>").removesuffix("</answer>")).plan == \
            [{k: v for k, v in day.items()} for day in solution.plan]


def test_the_budget_bound_is_tight(solved_train, memory_database):
    """One below the optimum, no plan, and the reason names the optimum; at the optimum, a plan."""
    for query, _, solution in solved_train[::9]:
        cost = solution.cost
        below = solve(query.model_copy(update={"budget": cost - 1}), memory_database)
        assert below.status == "infeasible" and below.code == "budget", below.reason
        assert f"costs {cost:g}" in below.reason
        at = solve(query.model_copy(update={"budget": cost}), memory_database)
        assert at.status == "solved" and at.cost == cost


def _with(query, **constraints):
    return query.model_copy(update={"local_constraint": query.local_constraint.model_copy(update=constraints)})


def test_a_constraint_no_listing_or_restaurant_meets_is_named(train, memory_database):
    query = train[0][0]  # St. Petersburg -> Rockford, 3 days
    shared = solve(_with(query, room_type="shared room"), memory_database)
    assert (shared.status, shared.code) == ("infeasible", "room type"), shared.reason
    assert "Rockford" in shared.reason
    unserved = solve(_with(query, cuisine=["Klingon"]), memory_database)
    assert (unserved.status, unserved.code) == ("infeasible", "cuisine"), unserved.reason


def test_no_leg_on_the_date_is_named(train, memory_database):
    query = train[0][0]
    later = query.model_copy(update={"date": ["2022-03-26", "2022-03-27", "2022-03-28"]})
    solution = solve(later, memory_database)
    if solution.status == "solved":  # a drive or taxi exists: then its leg is a ground one
        assert "Flight" not in solution.plan[0]["transportation"]
    else:
        assert solution.code in ("transport", "budget"), solution.reason
    honolulu = query.model_copy(update={"dest": "Honolulu"})
    solution = solve(honolulu, memory_database)
    assert (solution.status, solution.code) == ("infeasible", "transport"), solution.reason
    assert "2022-03-16" in solution.reason and "Honolulu" in solution.reason


def test_a_day_late_after_a_red_eye_is_cut_and_solved_again(train, shared_dir, tmp_path):
    """A cheap red-eye that lands at 12:30 the next day leaves no time for breakfast (until 12:00) on the stay
    day: the model (whose days all fit from 00:00) picks it first, the clock shows the late chain, the cut
    forbids it."""
    for key, rel in FILES.items():
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if key != "flights":
            target.symlink_to(shared_dir / "database" / rel)
    shutil.copyfile(shared_dir / "database" / FILES["flights"], tmp_path / FILES["flights"])
    with open(tmp_path / FILES["flights"], "a", newline="", encoding="utf-8") as out:
        csv.writer(out, lineterminator="\n").writerow(
            ["F9999999", 1, "23:00", "12:30", "13 hours 30 minutes", "2022-03-16", "St. Petersburg", "Rockford",
             900.0])
    store = load_database(tmp_path)
    query = train[0][0]
    solution = solve(query, store)
    assert solution.status == "solved" and solution.cuts >= 1
    assert "F9999999" not in solution.plan[0]["transportation"]
    assert _strict_failures(solution.plan, query, store) == []


def test_sqlite_store_gives_the_same_witnesses(train, shared_dir, tmp_path_factory, solved_train):
    from planshape.validators.travelplanner.store.sqlite import SqliteStore, build_store

    path = tmp_path_factory.mktemp("solver") / "sandbox.sqlite"
    build_store(shared_dir / "database", path)
    store = SqliteStore(path)
    for (query, _, expected) in solved_train[:15:4]:
        solution = solve(query, store)
        assert (solution.status, solution.cost, solution.plan) == ("solved", expected.cost, expected.plan)


def test_the_sample_world_is_solved():
    from planshape.validators.travelplanner import load_queries, sample

    store = load_database(sample.sample_database())
    for query in load_queries(sample.sample_queries()):
        solution = solve(query, store)
        assert solution.status == "solved" and solution.cost <= query.budget


def test_cli_solve_writes_an_evaluable_file(tmp_path):
    from planshape.shaping.cli import main
    from planshape.validators.travelplanner import sample

    out = tmp_path / "solutions.jsonl"
    assert main(["solve", str(sample.sample_queries()), "-o", str(out), "--no-progress"]) == 0
    report = tmp_path / "report.json"
    assert main(["evaluate", str(out), "--queries", str(sample.sample_queries()), "--mode", "strict",
                 "--json", str(report), "--no-progress"]) == 0
    import json

    assert json.loads(report.read_text())["metrics"]["rates"]["final_pass_rate"] == 1.0


def test_cli_solve_prints_an_evaluate_line_that_scores_what_it_solved(tmp_path, capsys):
    """The line solve prints names the database it solved on: without it, evaluate would score the witnesses
    against the bundled sample world."""
    import re
    import shlex

    from planshape.shaping.cli import main
    from planshape.validators.travelplanner import sample

    out = tmp_path / "solutions.jsonl"
    assert main(["solve", str(sample.sample_queries()), "--database", str(sample.sample_database()), "-o", str(out),
                 "--no-progress"]) == 0
    line = re.search(r"`planshape evaluate ([^`]*)`", " ".join(capsys.readouterr().out.split()))
    assert line is not None and "--database" in line[1], line
    report = tmp_path / "report.json"
    assert main(["evaluate", *shlex.split(line[1]), "--json", str(report), "--no-progress"]) == 0
    import json

    assert json.loads(report.read_text())["metrics"]["rates"]["final_pass_rate"] == 1.0


def test_cli_refuses_without_a_path(tmp_path, capsys):
    from planshape.shaping.cli import main

    assert main(["solve", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "missing.csv" in capsys.readouterr().err


def test_solutions_are_deterministic(train, memory_database):
    query = train[25][0]
    first, second = solve(query, memory_database), solve(query, memory_database)
    assert first.plan == second.plan  # same model, one worker: the same optimum
