"""``planshape explain`` and ``Shaper.explain``: each check's verdict, with each claim and what it was
compared with; never raises on what a model wrote."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from planshape.shaping import Shaper
from planshape.shaping.cli import main
from planshape.validators.travelplanner import sample
from planshape.validators.travelplanner.evaluation.explain import explain
from planshape.validators.travelplanner.plan.formats import from_upstream
from planshape.validators.travelplanner.store.sqlite import open_store

from .helpers import ROCKFORD, ROCKFORD_PLAN, rockford
from .test_properties import json_values


def _claim(explanation, day: int, field: str):
    return next(c for c in explanation.claims if c.day == day and c.field == field)


def test_a_failing_check_shows_the_claim_and_the_row_it_was_compared_with(database):
    plan = rockford(edits={(0, "breakfast"): ROCKFORD_PLAN[0]["dinner"], (0, "dinner"): "-"})
    data = explain(plan, ROCKFORD, database).to_dict()
    check = next(c for c in data["checks"] if c["key"] == "is_valid_information_in_current_city")
    assert check["verdict"] == "fail" and "lands at 17:04" in check["reason"]
    compared = [data["claims"][i] for i in check["claims"]]
    flight = next(c for c in compared if c["day"] == 1 and c["field"] == "transportation")
    assert "departs 15:40, arrives 17:04" in flight["compared_with"]
    breakfast = next(c for c in compared if c["day"] == 1 and c["field"] == "breakfast")
    assert breakfast["compared_with"].startswith("Coco Bambu, Rockford: $")


def test_a_claim_without_a_row_says_why(database):
    plan = rockford(edits={(1, "breakfast"): "Nowhere, Rockford",
                           (0, "transportation"): "Flight Number: F3573120, from St. Petersburg to Rockford"})
    explanation = explain(plan, ROCKFORD, database)
    assert _claim(explanation, 2, "breakfast").compared_with == "no restaurant named 'Nowhere' in Rockford (exact name)"
    flight = _claim(explanation, 1, "transportation").compared_with
    assert flight.startswith("no flight F3573120 from St. Petersburg to Rockford on 2022-03-16")
    assert "F3573120 flies Rockford to St. Petersburg" in flight
    official = explain(plan, ROCKFORD, database, "official")
    assert "(exact name)" not in _claim(official, 2, "breakfast").compared_with


def test_an_answer_the_gate_refuses_is_explained_by_the_gate(database):
    explanation = explain("<answer>[{\"days\": 1}]</answer>", ROCKFORD, database)
    assert explanation.result is None and "day 1" in explanation.gate
    assert explanation.to_dict()["checks"] == [] and not explanation.to_dict()["final_pass"]
    structured = explain("<answer>" + json.dumps(from_upstream(ROCKFORD_PLAN)) + "</answer>", ROCKFORD, database)
    assert structured.result.final_pass and structured.gate == "conforms to the plan schema"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values)
def test_explain_never_raises(database, value):
    explain(value, ROCKFORD, database).to_dict()
    explain(rockford(edits={(1, "lunch"): value, (2, "transportation"): value}), ROCKFORD, database).to_dict()


def test_the_facade_and_the_command_give_the_same_explanation(capsys):
    row = json.loads(sample.sample_dir().joinpath("rollouts.jsonl").read_text(encoding="utf-8").splitlines()[0])
    shaper = Shaper.from_mapping({"database": "sample", "mode": "strict", "total_steps": 10})
    expected = explain(row["text"], row["query"], open_store(str(sample.sample_database())), "strict").to_dict()
    assert shaper.explain(row["text"], row["query"]).to_dict() == expected
    assert main(["explain", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected
    assert main(["explain"]) == 0
    out = capsys.readouterr().out
    assert "claims and the sandbox rows they were compared with" in out and "Within Sandbox" in out


def test_the_command_reads_an_answer_file_and_a_query_file(tmp_path, capsys, shared_dir):
    (tmp_path / "plan.json").write_text(json.dumps(ROCKFORD_PLAN), encoding="utf-8")
    (tmp_path / "query.json").write_text(ROCKFORD.model_dump_json(by_alias=True), encoding="utf-8")
    assert main(["explain", "--answer", str(tmp_path / "plan.json"), "--query", str(tmp_path / "query.json"),
                 "--database", str(shared_dir / "database"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["final_pass"]
    assert main(["explain", "--answer", str(tmp_path / "plan.json")]) == 2  # no --query: a clear error


def test_the_command_gives_the_gate_the_answer_as_written(tmp_path, capsys):
    """A structured answer file goes to the gate as its text: a repeated key is refused there, as the reward
    refuses it, instead of being collapsed by a JSON parse first. (The facade reads text as the reward does, so
    the same plan as a model's answer block explains the same.)"""
    row = json.loads(sample.sample_dir().joinpath("rollouts.jsonl").read_text(encoding="utf-8").splitlines()[1])
    answer = row["text"].split("<answer>")[-1].split("</answer>")[0]
    (tmp_path / "query.json").write_text(json.dumps(row["query"]), encoding="utf-8")
    shaper = Shaper.from_mapping({"database": "sample", "mode": "strict", "total_steps": 10})
    for text, passes in ((answer, True), (answer.replace('"breakfast":', '"breakfast": null, "breakfast":', 1), False)):
        (tmp_path / "answer.json").write_text(text, encoding="utf-8")
        assert main(["explain", "--answer", str(tmp_path / "answer.json"), "--query", str(tmp_path / "query.json"),
                     "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown == shaper.explain(f"<answer>{text}</answer>", row["query"]).to_dict()
        assert shown["final_pass"] is passes
