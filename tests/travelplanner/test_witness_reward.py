"""The solver as a check of the checks: every witness it returns, for the 45 train queries, the validation queries
(on their flights table) and synthesized ones, is scored through the facade (``Shaper``, strict mode, the structured
answer a model writes) and must get the maximum reward at every stage of the curriculum. A witness the reward
refuses is a false rejection (or a solver bug): both are found here.

Witnesses of both objectives: the cheapest plans, and ``rich`` ones (every travel-day meal and up to three sights a
stay day that the days fit: the timeline's hardest honest days). CI runs all 45 train queries (rich: the 3- and
5-day ones), every 6th validation query and 12 synthesized ones; ``PLANSHAPE_SOLVER_FULL=1`` runs every train
query rich, all 180 validation queries and 90 synthesized ones.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("ortools", reason="the solver needs OR-Tools (scripts/setup.sh installs planshape[solver])")

from planshape.shaping import Shaper  # noqa: E402
from planshape.shaping.facade import gold_answer  # noqa: E402
from planshape.validators.travelplanner.solver import solve  # noqa: E402
from planshape.validators.travelplanner.store.database import FILES, load_database  # noqa: E402

FULL = os.environ.get("PLANSHAPE_SOLVER_FULL") == "1"
STEPS = (0, 150, 450)  # curriculum-8b: its three stages


def _shaper(database: Path) -> Shaper:
    return Shaper.from_mapping({"database": str(database), "mode": "strict", "schedule": "curriculum-8b",
                                "total_steps": 500})


def _assert_full_reward(shaper: Shaper, answers: list[str], records: list[dict], where: str) -> None:
    for step in STEPS:
        scores = shaper.score_batch(answers, records, step)
        for i, score in enumerate(scores):
            assert score.success and score.reward == shaper.max_reward(step), \
                (where, i, step, score.failure, score.reason)


def test_train_witnesses_earn_the_full_reward(solved_train, shared_dir, train_records):
    answers = [solution.answer_text() for _, _, solution in solved_train]
    assert all(a is not None for a in answers)
    _assert_full_reward(_shaper(shared_dir / "database"), answers, train_records, "train")


def test_rich_train_witnesses_earn_the_full_reward(train, memory_database, shared_dir, train_records):
    records, answers = [], []
    for (query, _), record in zip(train, train_records, strict=True):
        if query.days > 5 and not FULL:
            continue
        solution = solve(query, memory_database, objective="rich")
        assert solution.solved, (record["query"][:60], solution.failures)
        travel_meals = sum(day[m] != "-" for day in solution.plan if day["transportation"] != "-"
                           for m in ("breakfast", "lunch", "dinner"))
        assert travel_meals >= 2  # the days are filled: meals around the flights and drives
        records.append(record)
        answers.append(solution.answer_text())
    _assert_full_reward(_shaper(shared_dir / "database"), answers, records, "train, rich")


@pytest.fixture(scope="module")
def validation_database(shared_dir, tmp_path_factory) -> Path:
    """The shared database with the validation split's flights table (linked, never copied or edited)."""
    root = tmp_path_factory.mktemp("validation-db")
    for key, rel in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        source = shared_dir / ("validation/clean_Flights_2022.csv" if key == "flights" else f"database/{rel}")
        (root / rel).symlink_to(source)
    return root


def test_validation_witnesses_earn_the_full_reward(shared_dir, validation_database):
    from planshape.validators.travelplanner.query import Query

    records = [json.loads(line) for line in (shared_dir / "validation" / "queries.jsonl").read_text().splitlines()]
    records = records if FULL else records[::6]
    store = load_database(validation_database)
    solved, answers = [], []
    for record in records:
        solution = solve(Query.from_record(record), store)
        assert solution.status in ("solved", "infeasible"), (record["idx"], solution.status, solution.failures)
        if solution.solved:
            solved.append(record)
            answers.append(solution.answer_text())
        else:  # only queries whose flights the table lacks may have none: no flight, and no road a car can take
            assert not record["flights_in_table"] and solution.code == "transport", (record["idx"], solution.reason)
    assert len(solved) >= 0.9 * len(records)
    _assert_full_reward(_shaper(validation_database), answers, solved, "validation")


def test_synthesized_witnesses_earn_the_full_reward(shared_dir):
    from planshape.validators.travelplanner.synth.generate import parse_mix, synthesize

    store = load_database(shared_dir / "database")
    kept, _ = synthesize(store, 90 if FULL else 12, parse_mix("easy=1,medium=1,hard=1"), seed=7)
    records = [k.record for k in kept]
    answers = [gold_answer(r) for r in records]  # the witness, as the record's annotated_plan
    _assert_full_reward(_shaper(shared_dir / "database"), answers, records, "synth")
