"""``planshape synth``: queries in TravelPlanner's shape, at the benchmark's levels, each with a witness that passes
strict against the query as written (budget included), the same file for the same seed, read by every data step."""

from __future__ import annotations

import datetime as dt
import json
import math
import re

import numpy as np
import pytest

pytest.importorskip("ortools", reason="the solver needs OR-Tools (scripts/setup.sh installs planshape[solver])")

from planshape.validators.travelplanner.checks.hard import total_cost  # noqa: E402
from planshape.validators.travelplanner.checks.modes import STRICT  # noqa: E402
from planshape.validators.travelplanner.checks.trip import Trip  # noqa: E402
from planshape.validators.travelplanner.query import Query, gold_plan  # noqa: E402
from planshape.validators.travelplanner.solver.witness import verify  # noqa: E402
from planshape.validators.travelplanner.synth.fields import CUISINES, LEVELS, Fields, constraints  # noqa: E402
from planshape.validators.travelplanner.synth.generate import budget_of, counts, parse_mix, synthesize  # noqa: E402
from planshape.validators.travelplanner.synth.phrasing import NUMBER_WORDS, render  # noqa: E402

MIX = "easy=0.34,medium=0.33,hard=0.33"


@pytest.fixture(scope="module")
def synthesized(memory_database):
    kept, tallies = synthesize(memory_database, 15, parse_mix(MIX), seed=3)
    return [k.record for k in kept], tallies


def test_the_mix_is_split_as_asked():
    assert counts(1000, parse_mix(MIX)) == {"easy": 340, "medium": 330, "hard": 330}
    assert counts(10, parse_mix("hard=1")) == {"easy": 0, "medium": 0, "hard": 10}
    assert sum(counts(7, parse_mix(MIX)).values()) == 7
    for bad in ("easy", "easy=x", "expert=1", "easy=-1", "easy=0"):
        with pytest.raises(ValueError, match="--mix"):
            parse_mix(bad)


def test_each_level_is_the_benchmarks(synthesized, memory_database):
    records, _ = synthesized
    assert [r["level"] for r in records] == ["easy"] * 5 + ["medium"] * 5 + ["hard"] * 5
    for r in records:
        asked = {k: v for k, v in r["local_constraint"].items() if v is not None}
        if r["level"] == "easy":
            assert r["people_number"] == 1 and asked == {}
        else:
            assert 2 <= r["people_number"] <= 8
            assert len(asked) == (1 if r["level"] == "medium" else 3)
            assert r["level"] == "hard" or "transportation" not in asked
            if "cuisine" in asked:
                assert len(asked["cuisine"]) == (2 if r["level"] == "medium" else 4)
            if r["people_number"] > 2 and "room type" in asked:
                assert asked["room type"] in ("private room", "entire room")
        days = r["days"]
        assert (days, r["visiting_city_number"]) in ((3, 1), (5, 2), (7, 3))
        dates = [dt.date.fromisoformat(d) for d in r["date"]]
        assert [d.month for d in dates] == [3] * days
        assert [(b - a).days for a, b in zip(dates, dates[1:], strict=False)] == [1] * (days - 1)
        first = r["dest"] if days == 3 else None
        flights = [f for f in memory_database.flight_rows if f.origin == r["org"] and f.flight_date == r["date"][0]
                   and (f.destination == first or first is None
                        and memory_database.city_state.get(f.destination) == r["dest"])]
        assert flights, r  # the first leg is a flight of the database


def test_every_witness_passes_strict_within_the_budget_it_set(synthesized, memory_database):
    records, _ = synthesized
    for r in records:
        query = Query.from_record(r)
        plan = gold_plan(r)
        assert verify(plan, query, memory_database).failures == []
        cost = total_cost(Trip(query, plan, memory_database, STRICT))
        assert r["budget"] == budget_of(cost, 0.1) == max(100, math.ceil(cost * 1.1 / 100 - 1e-9) * 100)


def test_the_same_seed_gives_the_same_queries(synthesized, memory_database):
    again, _ = synthesize(memory_database, 15, parse_mix(MIX), seed=3, jobs=2)
    assert [k.record for k in again] == synthesized[0]
    other, _ = synthesize(memory_database, 15, parse_mix(MIX), seed=4)
    assert [k.record for k in other] != synthesized[0]


def test_the_text_states_every_fact(memory_database):
    """Rendered over many draws: the places, trip length, dates, party, budget and every constraint are in the text."""
    words = {"parties": "parties", "smoking": "smok", "children under 10": "children under", "visitors": "visitor",
             "pets": "pet", "entire room": "entire room", "private room": "private room",
             "shared room": "shared room", "not shared room": "not (be )?shared|non-shared",
             "no flight": "flight|flying", "no self-driving": "drive|self-driv"}
    for seed in range(300):
        rng = np.random.default_rng(seed)
        level = LEVELS[seed % 3]
        days = (3, 5, 7)[seed % 7 % 3]
        people = 1 if level == "easy" else int(rng.integers(2, 9))
        fields = Fields("Oakland", "Tucson" if days == 3 else "Texas", days, days // 2,
                        [f"2022-03-{10 + i:02d}" for i in range(days)], people, level, constraints(level, people, rng))
        text = render(fields, 12_300, rng)
        assert "Oakland" in text and fields.dest in text and "$12,300" in text, text
        assert str(days) in text or (days == 7 and "week" in text), text
        assert re.search(r"\b10(th)?\b", text) and re.search(rf"\b{9 + days}(th)?\b", text), text
        if days > 3:
            assert str(days // 2) in text or NUMBER_WORDS[days // 2] in text, text
        party = {1: ("single", "one person", "1 person", "solo"), 2: ("two", "2 people", "pair", "couple")}
        assert any(p in text for p in party.get(people, (str(people),))), text
        for key, value in fields.local_constraint.items():
            if value is None:
                continue
            if key == "cuisine":
                assert all(c in text for c in value) and set(value) <= set(CUISINES), text
            else:
                assert re.search(words[value], text, re.I), (value, text)


def test_cli_synth_writes_the_same_file_twice(tmp_path, shared_dir):
    from planshape.shaping.cli import main

    runs = []
    for name, jobs in (("a", "1"), ("b", "2")):
        out = tmp_path / f"{name}.jsonl"
        assert main(["synth", "--n", "4", "--database", str(shared_dir / "database"), "-o", str(out), "--seed", "9",
                     "--jobs", jobs, "--no-progress"]) == 0
        runs.append(out.read_bytes())
    assert runs[0] == runs[1] and len(runs[0].splitlines()) == 4
    csv_out = tmp_path / "c.csv"
    assert main(["synth", "--n", "4", "--database", str(shared_dir / "database"), "-o", str(csv_out), "--seed", "9",
                 "--no-progress"]) == 0
    from planshape.validators.travelplanner.query import read_records

    as_csv = [Query.from_record(r) for r in read_records(csv_out)]
    as_jsonl = [Query.from_record(json.loads(line)) for line in runs[0].splitlines()]
    assert as_csv == as_jsonl


def test_the_data_steps_read_the_output(tmp_path, synthesized):
    """What ``--queries`` / ``prepare-data`` read everywhere: the facade's query files, TRL's and OpenRLHF's data
    steps, the rollout harness's inputs (VERL's, which needs pyarrow, runs in the TRL suite)."""
    from planshape.shaping.cli import main
    from planshape.shaping.facade import read_all_queries
    from planshape.shaping.rollout.inputs import read_inputs

    path = tmp_path / "synth.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in synthesized[0]))
    assert len(read_all_queries([path])) == 15
    assert read_inputs(path, None).queries is not None
    for trainer in ("trl", "openrlhf"):
        assert main([trainer, "prepare-data", str(path), "-o", str(tmp_path / f"{trainer}.jsonl")]) == 0
        assert len((tmp_path / f"{trainer}.jsonl").read_text().splitlines()) == 15


def test_a_database_without_flights_is_refused(tmp_path, shared_dir):
    from planshape.shaping.cli import main
    from planshape.validators.travelplanner.store.database import FILES

    for key, rel in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        if key == "flights":
            header = (shared_dir / "database" / rel).read_text().splitlines()[0]
            (tmp_path / rel).write_text(header + "\n")
        else:
            (tmp_path / rel).symlink_to(shared_dir / "database" / rel)
    assert main(["synth", "--n", "2", "--database", str(tmp_path), "-o", str(tmp_path / "o.jsonl")]) == 2


def test_a_query_drawn_again_is_not_solved_again_and_used_up_trips_stop_with_a_reason(memory_database, monkeypatch):
    """The shared flights table starts few easy trips: asking for more than it holds stops once the draws repeat
    (here after 300 attempts with nothing new), naming the count, instead of solving repeats until the attempt cap;
    every solve was of a query not solved before."""
    from planshape.validators.travelplanner.synth import generate

    monkeypatch.setattr(generate, "STALE", 300)
    solved: list[tuple] = []
    real_solve = generate._solve
    monkeypatch.setattr(generate, "_solve", lambda fields: (solved.append(fields.key()), real_solve(fields))[1])
    with pytest.raises(ValueError, match=r"only \d+ easy queries of 400 have a plan: the last 300 of \d+ attempts "
                                         r"drew no easy query not tried before"):
        synthesize(memory_database, 400, parse_mix("easy=1"), seed=0)
    assert solved and len(solved) == len(set(solved))
