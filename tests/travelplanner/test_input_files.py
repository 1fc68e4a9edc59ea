"""Malformed submission and rollouts files: a plan not delivered with its reason, or exit 2 naming file and
line, never a traceback (issue 8)."""

import json

import pytest
from planshape.shaping.cli import main
from planshape.shaping.facade import gold_answer
from planshape.shaping.rollout_file import read_rollouts
from planshape.validators.travelplanner.evaluation.submission import read_submission
from planshape.validators.travelplanner.jsonl import read_jsonl
from planshape.validators.travelplanner.sample import sample_dir, sample_plans, sample_queries

DEEP = "[" * 100_000 + "]" * 100_000


def write(path, lines: list[bytes]) -> str:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return str(path)


def test_every_bad_line_is_a_plan_not_delivered_with_its_reason(tmp_path):
    good = json.dumps({"idx": 0, "plan": None}).encode()
    path = write(tmp_path / "plans.jsonl", [
        b"\xef\xbb\xbf" + good,  # a UTF-8 byte-order mark before line 1
        DEEP.encode(),
        b"5",
        b"{not json",
        b"\xff\xfe{}",
        b"",  # blank lines are skipped
        json.dumps({"plan": [{"current_city": "x\u2028y"}]}, ensure_ascii=False).encode(),  # U+2028 inside
    ])
    subs = read_submission(path)
    assert len(subs) == 6
    assert subs[0].plan is None and subs[0].note == ""  # line 1 parsed despite the BOM
    assert subs[1].plan is None and subs[1].note == "line 2: JSON nested too deeply"
    assert subs[2].plan is None and "line 3: a number" in subs[2].note
    assert subs[3].plan is None and subs[3].note.startswith("line 4: not JSON")
    assert subs[4].plan is None and subs[4].note.startswith("line 5: not UTF-8")
    assert subs[5].plan == [{"current_city": "x\u2028y"}]  # not cut at U+2028, as str.splitlines would


def test_evaluate_reports_unreadable_lines_and_exits_0(tmp_path):
    lines = [line.encode() for line in open(sample_plans(), encoding="utf-8").read().splitlines() if line.strip()]
    lines[0], lines[1] = DEEP.encode(), b"[1, [2]]"
    report = tmp_path / "r.json"
    argv = ["evaluate", write(tmp_path / "p.jsonl", lines), "--queries", str(sample_queries()), "--no-progress",
            "--json", str(report)]
    assert main(argv) == 0
    plans = json.loads(report.read_text())["plans"]
    assert not plans[0]["delivered"] and plans[0]["note"] == "line 1: JSON nested too deeply"
    assert plans[1]["delivered"] and not plans[1]["final_pass"]


@pytest.mark.parametrize(("line", "reason"), [
    (DEEP.encode(), "line 2: JSON nested too deeply"),
    (b"7", "line 2: a number, not an object"),
    (b"[]", "line 2: an array, not an object"),
    (b'{"group": "g"}', "line 2: missing ['query', 'text', 'turn_tokens']"),
    (b'{"group": "g", "text": "", "query": {}, "turn_tokens": [3, "x"]}', "line 2: 'turn_tokens' must be"),
    (b'{"group": [1], "text": "", "query": {}, "turn_tokens": [3]}', "line 2: 'group' is an array"),
    (b'{"group": 1, "text": "", "query": "q", "turn_tokens": [3]}', "line 2: 'query' is a string"),
    (b"\xc3(", "line 2: not UTF-8"),
])
def test_bad_rollouts_line_is_one_clear_error(tmp_path, capsys, line, reason):
    first = open(sample_dir() / "rollouts.jsonl", "rb").read().split(b"\n")[0]
    path = write(tmp_path / "rollouts.jsonl", [b"\xef\xbb\xbf" + first, line])
    with pytest.raises(ValueError, match=f"rollouts.jsonl: {reason}".replace("[", r"\[").replace("]", r"\]")):
        read_rollouts(path)
    assert main(["score", path]) == 2
    err = capsys.readouterr().err.strip()
    assert reason in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_rollouts_with_a_bom_are_read(tmp_path):
    lines = open(sample_dir() / "rollouts.jsonl", "rb").read().split(b"\n")
    path = write(tmp_path / "r.jsonl", [b"\xef\xbb\xbf" + lines[0], *lines[1:]])
    assert len(read_rollouts(path)) == len(read_rollouts(sample_dir() / "rollouts.jsonl"))


def test_read_jsonl_numbers_lines_from_one_and_skips_blank(tmp_path):
    path = write(tmp_path / "x.jsonl", [b"1", b"  ", b"\r", b"[2]\r"])
    assert [(line.number, line.value) for line in read_jsonl(path)] == [(1, 1), (4, [2])]


def test_query_files_fail_with_file_line_and_reason(tmp_path):
    """``--queries`` files: malformed lines are one clear ValueError, never a traceback; a BOM is accepted."""
    from planshape.validators.travelplanner.query import load_queries, read_records
    from planshape.validators.travelplanner.sample import sample_queries

    good = sample_queries().read_text(encoding="utf-8").splitlines()[0]
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + good.encode() + b"\n")
    assert len(load_queries(bom)) == 1
    cases = {"deep.jsonl": "[" * 100_000 + "\n", "array.jsonl": good + "\n[1, 2]\n", "bad.jsonl": good + "\n{nope\n"}
    expected = {"deep.jsonl": "line 1: JSON nested too deeply", "array.jsonl": "line 2: a query record is a JSON "
                "object, not an array", "bad.jsonl": "line 2: not JSON"}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ValueError, match=expected[name]):
            read_records(tmp_path / name)
    (tmp_path / "list.json").write_text(f"[{good}, 3]")
    with pytest.raises(ValueError, match="record 2: a query record is a JSON object, not a number"):
        read_records(tmp_path / "list.json")
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbforg,dest\nA,B\n")
    assert read_records(tmp_path / "bom.csv") == [{"org": "A", "dest": "B"}]


def test_a_plan_given_as_answer_text_is_read_as_the_reward_reads_it(tmp_path, train_records, database):
    """``"plan"`` may be a model's answer text: its last ``<answer>`` block is gated, as the reward gates it
    (the facade's ``gold_answer`` writes exactly that); a text without a complete block is not delivered, with why."""
    from planshape.validators.travelplanner.checks.verdicts import check_plan
    from planshape.validators.travelplanner.query import Query, gold_plan

    record = train_records[0]
    query, plan = Query.from_record(record), gold_plan(record)
    answer = "Let me check the flights first.\n" + gold_answer(record)
    path = write(tmp_path / "plans.jsonl", [json.dumps({"plan": answer}).encode(),
                                            json.dumps({"plan": "thinking... <answer>[{"}).encode()])
    delivered, cut = read_submission(path)
    assert delivered.note == "" and delivered.plan[: query.days] == plan[: query.days]
    assert check_plan(delivered.plan, query, database, "strict").final_pass
    assert cut.plan is None and cut.note == "no answer: no complete <answer>...</answer> block"


def test_a_missing_query_file_is_one_line_saying_where_the_splits_come_from(tmp_path, capsys):
    from planshape.shaping.cli import main
    from planshape.validators.travelplanner.query import read_records

    with pytest.raises(FileNotFoundError) as missing:
        read_records(tmp_path / "validation.csv")
    message = str(missing.value)
    assert "\n" not in message and message.startswith(f"{tmp_path / 'validation.csv'}: no such query file")
    assert "osunlp/TravelPlanner" in message and "'sample'" in message
    (tmp_path / "plans.jsonl").write_text("")
    assert main(["evaluate", str(tmp_path / "plans.jsonl"), "--queries", str(tmp_path / "validation.csv")]) != 0
    assert "no such query file" in capsys.readouterr().err
