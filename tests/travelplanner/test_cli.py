"""``planshape evaluate`` end to end: the sample world by default, the real train split with --database."""

import json

import pytest
from planshape.shaping.cli import main


def test_evaluate_sample_world(tmp_path, capsys):
    report_path = tmp_path / "report.json"
    assert main(["evaluate", "--json", str(report_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "mode: official" in out and "Final Pass Rate" in out and "sample world" in out
    report = json.loads(report_path.read_text())
    assert report["mode"] == "official"
    assert report["metrics"]["numerators"]["final_pass_rate"] == 3
    assert report["metrics"]["numerators"]["delivery_rate"] == 7
    plans = report["plans"]
    assert plans[1]["hard"]["valid_cost"] == {"verdict": "fail", "reason": "The total cost 860 exceeds the budget 700."}
    assert plans[3]["hard"] is None and "is_valid_information_in_sandbox" in plans[3]["note"]
    assert plans[6]["final_pass"]  # the structured-format plan
    assert set(plans[0]["commonsense"]) >= {"is_valid_information_in_sandbox", "is_not_absent"}


def test_evaluate_train_gold_plans(tmp_path, shared_dir, train_records, capsys):
    from planshape.validators.travelplanner.query import gold_plan

    plans = tmp_path / "gold.jsonl"
    plans.write_text("".join(json.dumps({"idx": i, "plan": gold_plan(r)}) + "\n" for i, r in enumerate(train_records)))
    report_path = tmp_path / "r.json"
    for mode in ("official", "strict"):
        argv = ["evaluate", str(plans), "--queries", str(shared_dir / "train.csv"), "--database",
                str(shared_dir / "database"), "--split", "train", "--mode", mode, "--json", str(report_path)]
        assert main(argv) == 0
        report = json.loads(report_path.read_text())
        assert report["mode"] == mode
        assert set(report["metrics"]["rates"].values()) == {1.0}


def test_mismatched_files_fail_with_message(tmp_path, capsys):
    from planshape.validators.travelplanner.sample import sample_queries

    plans = tmp_path / "one.jsonl"
    plans.write_text('{"plan": null}\n')
    assert main(["evaluate", str(plans), "--queries", str(sample_queries()), "--no-progress"]) == 2
    assert "1 plans but 8 queries" in capsys.readouterr().err


def test_plans_without_queries_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit):
        main(["evaluate", str(tmp_path / "x.jsonl")])


def test_unreadable_lines_are_reported_per_line_and_counted(tmp_path, capsys):
    """A malformed JSON line, or an ``answer`` key where ``plan`` was expected, still counts as not delivered (as
    upstream), but the report says so for each line and counts them."""
    from planshape.validators.travelplanner.sample import sample_plans, sample_queries

    lines = sample_plans().read_text().splitlines()
    lines[1] = '{"plan": [{"day": 1,'  # cut off
    lines[4] = json.dumps({"idx": 4, "answer": json.loads(lines[4])["plan"]})
    plans = tmp_path / "plans.jsonl"
    plans.write_text("\n".join(lines) + "\n")
    report_path = tmp_path / "r.json"
    assert main(["evaluate", str(plans), "--queries", str(sample_queries()), "--json", str(report_path),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "2 line(s) could not be read as submission lines" in out
    assert "line 2: " in out and "line 5: an object without a 'plan' key (keys: answer, idx)" in out
    report = json.loads(report_path.read_text())
    assert [u["idx"] for u in report["unreadable_lines"]] == [1, 4]
    assert not report["plans"][1]["delivered"] and not report["plans"][4]["delivered"]
    assert report["metrics"]["numerators"]["delivery_rate"] == 5  # the sample world's 7, less these two


def test_conventions_from_the_command_line(tmp_path, shared_dir, train_records):
    """A lunch after a 17:04 landing fails strict by a convention (lunch closes 16:30); `--conventions` moves the
    close, and the same plan passes. Official mode has no conventions: the option is refused there."""
    from planshape.validators.travelplanner.query import gold_plan

    gold = [gold_plan(r) for r in train_records]
    gold[0][0]["lunch"] = "Cafe Coffee Day, Rockford"
    plans = tmp_path / "plans.jsonl"
    plans.write_text("".join(json.dumps({"idx": i, "plan": p}) + "\n" for i, p in enumerate(gold)))
    report_path = tmp_path / "r.json"
    argv = ["evaluate", str(plans), "--queries", str(shared_dir / "train.csv"), "--database",
            str(shared_dir / "database"), "--mode", "strict", "--no-progress", "--json", str(report_path)]
    assert main(argv) == 0
    first = json.loads(report_path.read_text())["plans"][0]
    assert not first["final_pass"]
    assert "[convention]" in first["commonsense"]["is_valid_information_in_current_city"]["reason"]
    assert main([*argv, "--conventions", '{"lunch": ["11:00", "20:00"]}']) == 0
    assert json.loads(report_path.read_text())["plans"][0]["final_pass"]
    with pytest.raises(SystemExit, match="add --mode strict"):
        main([*argv[:-5], "--conventions", "{}"])
    with pytest.raises(SystemExit, match="lunch: .*two times of day"):
        main([*argv, "--conventions", '{"lunch": ["11:00"]}'])
