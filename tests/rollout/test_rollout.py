"""planshape rollout against a scripted OpenAI-compatible server over real HTTP, with the real client:
tool calls good and bad, gold and broken answers, 500/429/hangs, and metrics equal to ``planshape evaluate``."""

from __future__ import annotations

import json
from pathlib import Path

from planshape.shaping.cli import main
from planshape.validators.travelplanner.agent.tools import ToolBox
from planshape.validators.travelplanner.plan.formats import to_upstream

from .conftest import write_jsonl
from .scripted_model import answer, model
from .scripted_server import ScriptedServer

FLIGHT = {"origin": "Harborview", "destination": "Lindenfield", "date": "2022-03-10"}
FAST = ["--request-timeout", "0.5", "--retries", "2", "--no-progress"]


def rollout(queries: Path, server: ScriptedServer, out: Path, *extra: str) -> int:
    return main(["rollout", str(queries), "--base-url", server.base_url, "--model", "scripted", "-o", str(out),
                 "--database", "sample", *FAST, *extra])


def evaluate_json(plans: Path, queries: Path, out: Path) -> dict:
    assert main(["evaluate", str(plans), "--queries", str(queries), "--no-progress",
                 "--json", str(out)]) == 0
    return json.loads(out.read_text())


def results(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def tool_messages(record: dict) -> list[str]:
    return [m["content"] for m in record["transcript"] if m["role"] == "tool"]


def test_served_model_metrics_transcripts_and_failures(tmp_path, sample_world, toolbox, capsys):
    queries, records, plans = sample_world
    records.append({**records[0], "query": records[0]["query"] + " [broken json]"})
    write_jsonl(queries, records)
    text = [r["query"] for r in records]
    turns = {
        text[0]: [{"before": [{"status": 500}], "tool_calls": [("search_flights", json.dumps(FLIGHT))]},
                  {"tool_calls": [("calculator", '{"expression": "(474 + 346) * 2"}')]}, {"content": answer(plans[0])}],
        text[1]: [{"tool_calls": [("search_restaurants", "{not json")]},
                  {"before": [{"status": 429}], "content": answer(plans[1])}],
        text[2]: [{"before": [{"hang": 2.0}], "tool_calls": [("book_hotel", '{"city": "Lindenfield"}')]},
                  {"content": answer(plans[2])}],
        text[3]: [{"tool_calls": [("search_attractions", json.dumps({"city": "x" * 5000}))]},
                  {"content": answer(plans[3])}],
        text[4]: [{"content": answer(plans[4])}],
        text[5]: [{"tool_calls": [("get_cities", '{"state": "Eastvale"}')]}, {"always": {"status": 500}}],
        text[6]: [{"tool_calls": [("calculator", f'{{"expression": "{i} + 1"}}') for i in range(10)]},
                  {"content": answer(plans[6])}],
        text[7]: [{"tool_calls": [("calculator", '{"expression": "1 + 1"}')]}],  # never answers
        text[8]: [{"content": "<answer>[{\"days\": 1, broken</answer>"}],
    }
    run = tmp_path / "run"
    with ScriptedServer(model(turns)) as server:
        assert rollout(queries, server, run, "--max-turns", "6", "--concurrency", "4") == 0
    out = capsys.readouterr().out
    assert "Final Pass Rate" in out and "reward-hacking monitor" in out and "failed" in out

    # The run's report is `planshape evaluate` on its submission, and on the plans the model was scripted to give.
    expected = [plans[0], plans[1], plans[2], plans[3], plans[4], None, to_upstream(plans[6]), None, None]
    expected_file = write_jsonl(tmp_path / "expected.jsonl", [{"idx": i, "plan": p} for i, p in enumerate(expected)])
    report = json.loads((run / "report.json").read_text())
    assert report == evaluate_json(run / "submission.jsonl", queries, tmp_path / "a.json")
    by_expected = evaluate_json(expected_file, queries, tmp_path / "b.json")
    for key in ("metrics", "breakdown", "per_constraint"):
        assert report[key] == by_expected[key]
    assert [p["final_pass"] for p in report["plans"]] == [p["final_pass"] for p in by_expected["plans"]]
    assert report["metrics"]["numerators"]["delivery_rate"] == 6

    rows = results(run)
    assert [(r["idx"], r["status"]) for r in rows] == [
        (0, "answered"), (1, "answered"), (2, "answered"), (3, "answered"), (4, "answered"), (5, "error"),
        (6, "answered"), (7, "max_turns"), (8, "answered")]
    # Transcripts carry the toolbox's own answers, errors included.
    assert tool_messages(rows[0]) == [toolbox.call("search_flights", FLIGHT), "1640"]
    assert tool_messages(rows[1])[0] == "Error: the arguments are not valid JSON"
    assert tool_messages(rows[2])[0].startswith("Error: unknown tool 'book_hotel'")
    assert tool_messages(rows[3])[0] == "Error: the arguments are too long"
    capped = tool_messages(rows[6])
    assert capped[:8] == [str(i + 1) for i in range(8)] and all("at most 8 tool calls" in m for m in capped[8:])
    assert rows[7]["turns"] == 6 and rows[7]["plan"] is None and rows[7]["score"]["failure"] == "no_answer"
    assert "HTTP 500" in rows[5]["error"] and rows[5]["plan"] is None and rows[5]["turns"] == 1
    assert rows[8]["plan"] is None and rows[8]["plan_note"].startswith("schema:")
    assert rows[8]["score"]["failure"] == "schema"
    assert rows[0]["score"]["success"] and rows[0]["score"]["verdicts"] == report_code(report["plans"][0])
    assert not rows[1]["score"]["success"] and rows[1]["score"]["failure"].startswith("hard:")
    # Retries were real: the failed first attempts were served, then answered.
    assert server.attempts.most_common(1)[0][1] == 3  # the always-500 turn: 1 try + 2 retries
    summary = json.loads((run / "summary.json").read_text())
    assert summary["failed"] == [{"idx": 5, "sample": 0, "error": rows[5]["error"]}]
    assert summary["status"] == {"answered": 7, "error": 1, "max_turns": 1}
    assert summary["metrics"]["final_pass_rate"] == [report["metrics"]["rates"]["final_pass_rate"]]


def report_code(plan: dict) -> str:
    """The 13 official verdicts of an evaluate report's plan as the facade codes them (p/f/n, - not run)."""
    code = {"pass": "p", "fail": "f", "n/a": "n"}
    hard = plan["hard"] or {}
    return "".join(code[v["verdict"]] for v in plan["commonsense"].values()) + (
        "".join(code[v["verdict"]] for v in hard.values()) if hard else "-" * 5)


def test_text_mode_parses_tool_call_blocks(tmp_path, sample_world, toolbox):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:3])
    turns = {records[0]["query"]: [{"tool_calls": [("search_flights", json.dumps(FLIGHT))]},
                                   {"content": answer(plans[0])}],
             records[1]["query"]: [{"tool_calls": [("get_cities", "{oops")]}, {"content": answer(plans[1])}],
             records[2]["query"]: [{"tool_calls": [("get_cities", json.dumps("x" * 5000))]},
                                   {"content": answer(plans[2])}]}
    run = tmp_path / "run"
    with ScriptedServer(model(turns)) as server:
        assert rollout(queries, server, run, "--tool-format", "text") == 0
    rows = results(run)
    first = rows[0]["transcript"]
    assert [m["role"] for m in first] == ["user", "assistant", "user", "assistant"]
    assert first[2]["content"] == f"<tool_response>\n{toolbox.call('search_flights', FLIGHT)}\n</tool_response>"
    # A block that is no call is answered with the reason, as a bad native call is (never "unknown tool ''").
    assert rows[1]["transcript"][2]["content"] == ("<tool_response>\nError: the tool call is not valid JSON "
                                                   "(Expecting property name enclosed in double quotes at character "
                                                   "37)\n</tool_response>")
    assert rows[2]["transcript"][2]["content"] == ("<tool_response>\nError: the tool call is longer than 4096 "
                                                   "characters\n</tool_response>")
    assert [r["plan"] for r in rows] == plans[:3] and rows[0]["score"]["success"]


def test_samples_give_per_sample_files_and_pass_at_k(tmp_path, sample_world):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:2])

    def script(request, attempt):  # the second sample of query 0 answers wrongly; query 1 always fails budget
        user = request["messages"][1]["content"]
        if user == records[0]["query"]:
            return {"content": answer(plans[0]) if attempt == 0 else "no plan"}
        return {"content": answer(plans[1])}

    run = tmp_path / "run"
    with ScriptedServer(script) as server:
        assert rollout(queries, server, run, "--samples", "2", "--concurrency", "1") == 0
    summary = json.loads((run / "summary.json").read_text())
    assert sorted(summary["metrics"]["final_pass_rate"]) == [0.0, 0.5]
    assert summary["metrics_mean"]["final_pass_rate"] == 0.25 and summary["pass@2"] == 0.5
    for k in (0, 1):
        assert len((run / f"submission-{k}.jsonl").read_text().splitlines()) == 2
        assert (run / f"report-{k}.json").exists()


def test_test_split_is_rolled_out_unscored(tmp_path, sample_world, capsys):
    queries, records, plans = sample_world
    withheld = [{k: r[k] for k in ("org", "dest", "days", "date", "query", "level")} for r in records[:2]]
    write_jsonl(queries, withheld)
    run = tmp_path / "run"
    with ScriptedServer(lambda request, attempt: {"content": answer(plans[0])}) as server:
        assert rollout(queries, server, run) == 0
    assert "leaderboard" in capsys.readouterr().out
    lines = [json.loads(x) for x in (run / "submission.jsonl").read_text().splitlines()]
    assert [x["plan"] for x in lines] == [plans[0], plans[0]] and [x["query"] for x in lines] == [
        r["query"] for r in withheld]
    assert not (run / "report.json").exists() and all(r["score"] is None for r in results(run))


def test_start_up_mistakes_fail_before_any_trajectory(tmp_path, sample_world, capsys):
    queries, records, _ = sample_world
    with ScriptedServer(lambda request, attempt: {"content": "x"}) as server:
        assert main(["rollout", str(queries), "--base-url", server.base_url, "--model", "other", "-o",
                     str(tmp_path / "a"), *FAST]) == 2
        assert "does not serve --model 'other'" in capsys.readouterr().err
        assert rollout(queries, server, tmp_path / "b", "--concurrency", "0") == 2
        assert "--concurrency must be a whole number >= 1" in capsys.readouterr().err
        assert rollout(queries, server, tmp_path / "c", "--split", "train") == 2
        assert "that split has 45 queries" in capsys.readouterr().err
        assert rollout(queries, server, tmp_path / "d", "--max-turns", "3") == 0
        assert rollout(queries, server, tmp_path / "d", "--max-turns", "4", "--mode", "strict") == 2
        assert ("holds a run with other settings (metrics_mode: \"official\" in the run, \"strict\" now; "
                "settings.max_turns: 3 in the run, 4 now)") in capsys.readouterr().err
    assert main(["rollout", str(queries), "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "-o",
                 str(tmp_path / "e"), *FAST]) == 2
    assert "cannot reach http://127.0.0.1:9/v1" in capsys.readouterr().err


def test_unreadable_replies_are_recorded_not_raised(tmp_path, sample_world, toolbox):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:4])
    odd_call = {"choices": [{"message": {"content": 5, "tool_calls": [
        {"id": None, "function": {"name": 3, "arguments": {"city": "Lindenfield"}}}]}, "finish_reason": None}]}
    turns = {records[0]["query"]: [{"always": {"raw": "this is not JSON"}}],
             records[1]["query"]: [{"always": {"raw": '{"choices": []}'}}],
             records[2]["query"]: [{"always": {"raw": json.dumps(odd_call)}}],
             records[3]["query"]: [{"always": {"raw": '{"choices": [{"message": null}]}'}}]}
    run = tmp_path / "run"
    with ScriptedServer(model(turns)) as server:
        assert rollout(queries, server, run, "--max-turns", "2") == 0
    rows = results(run)
    assert [r["status"] for r in rows] == ["error", "error", "max_turns", "error"]
    assert all(r["plan"] is None and r["score"]["reward"] == 0.0 for r in rows)
    assert all("unreadable reply" in r["error"] or "HTTP" in r["error"] or "Error" in r["error"]
               for r in rows if r["status"] == "error")
    assert tool_messages(rows[2])[0].startswith("Error: unknown tool: a tool name is text")


def test_extra_body_fields_reach_the_server(tmp_path, sample_world, capsys):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:1])
    seen = []

    def script(request, attempt):
        seen.append({k: request.get(k) for k in ("top_p", "chat_template_kwargs", "seed", "max_tokens")})
        return {"content": answer(plans[0])}

    with ScriptedServer(script) as server:
        extra = '{"top_p": 0.5, "chat_template_kwargs": {"enable_thinking": false}}'
        assert rollout(queries, server, tmp_path / "a", "--extra-body", extra, "--seed", "7", "--max-tokens", "64") == 0
        assert seen == [{"top_p": 0.5, "chat_template_kwargs": {"enable_thinking": False}, "seed": 7, "max_tokens": 64}]
        assert rollout(queries, server, tmp_path / "b", "--extra-body", '{"messages": []}') == 2
        assert "--extra-body may not set ['messages']" in capsys.readouterr().err


def test_text_mode_answers_calls_past_the_cap_like_native_mode(tmp_path, sample_world):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:1])
    turns = {records[0]["query"]: [{"tool_calls": [("calculator", f'{{"expression": "{i} + 1"}}')
                                                   for i in range(10)]}, {"content": answer(plans[0])}]}
    with ScriptedServer(model(turns)) as server:
        assert rollout(queries, server, tmp_path / "run", "--tool-format", "text") == 0
    (row,) = results(tmp_path / "run")
    responses = row["transcript"][2]["content"].split("</tool_response>")[:-1]
    assert len(responses) == 10 and all("at most 8 tool calls" in r for r in responses[8:])
    assert row["tool_calls"] == 8


def test_the_training_config_sets_database_reward_mode_and_tool_limits(tmp_path, sample_world, toolbox, capsys):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:1])
    config = tmp_path / "planshape.yaml"
    config.write_text("database: sample\nmode: official\ntools: {max_chars: 60}\nschedule: stage3\n"
                      "total_steps: 500\n")
    flight = json.dumps(FLIGHT)
    turns = {records[0]["query"]: [{"tool_calls": [("search_flights", flight)]}, {"content": answer(plans[0])}]}
    with ScriptedServer(model(turns)) as server:
        assert main(["rollout", str(queries), "--base-url", server.base_url, "--model", "scripted", "-o",
                     str(tmp_path / "run"), "--config", str(config), *FAST]) == 0
    assert "reward (official mode): mean 1.000" in capsys.readouterr().out  # stage 3: the final pass alone
    (row,) = results(tmp_path / "run")
    assert tool_messages(row) == [ToolBox(toolbox.store, max_chars=60).call("search_flights", FLIGHT)]
    assert len(tool_messages(row)[0]) <= 60
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["planshape"]["mode"] == "official" and run["planshape"]["schedule"] == "stage3"
