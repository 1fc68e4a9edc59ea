"""What a new user trips on, caught at start-up with what to fix, before any trajectory and without locking the
run directory: a base URL without ``/v1``, a vLLM without a tool parser, queries the chosen world cannot answer;
and a run whose every request failed exits non-zero, saying how to retry."""

from __future__ import annotations

import json

from planshape.shaping.cli import main

from .conftest import write_jsonl
from .scripted_model import answer, model
from .scripted_server import ScriptedServer
from .test_rollout import FAST, results, rollout

# A real TravelPlanner train query: its cities are not in the bundled sample world.
REAL = {"org": "St. Petersburg", "dest": "Rockford", "days": 3, "visiting_city_number": 1,
        "date": ["2022-03-16", "2022-03-17", "2022-03-18"], "people_number": 1,
        "local_constraint": {"house rule": None, "cuisine": None, "room type": None, "transportation": None},
        "budget": 1700, "query": "Please help me plan a trip from St. Petersburg to Rockford spanning 3 days.",
        "level": "easy"}


def printed(capsys) -> str:
    """What the run printed on stdout, with the console's line wrapping undone."""
    return " ".join(capsys.readouterr().out.split())


def answering(plans):
    return lambda request, attempt: {"content": answer(plans[0])}


def run_at(base_url: str, queries, out, *extra: str) -> int:
    return main(["rollout", str(queries), "--base-url", base_url, "--model", "scripted", "-o", str(out),
                 "--database", "sample", *FAST, *extra])


def test_a_base_url_without_v1_fails_saying_add_v1(tmp_path, sample_world, capsys):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:2])
    run = tmp_path / "run"
    with ScriptedServer(answering(plans)) as server:
        root = server.base_url.removesuffix("/v1")
        assert run_at(root, queries, run) == 2
        assert f"{root} is not the API root, {root}/v1 is: add /v1 (--base-url {root}/v1)" in capsys.readouterr().err
        assert server.completions == server.probes == 0 and not (run / "run.json").exists()
        assert run_at(server.base_url, queries, run) == 0  # the corrected command runs in the same directory
    assert [r["status"] for r in results(run)] == ["answered", "answered"]


def test_a_server_without_a_tool_parser_fails_naming_its_flags(tmp_path, sample_world, capsys):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:2])
    run = tmp_path / "run"
    with ScriptedServer(answering(plans), tool_parser=False) as server:
        assert run_at(server.base_url, queries, run) == 2
        err = capsys.readouterr().err
        assert "rejects requests with tools (HTTP 400: \"auto\" tool choice requires" in err
        assert "start vLLM with --enable-auto-tool-choice --tool-call-parser hermes" in err
        assert "or pass --tool-format text" in err
        assert server.completions == 0 and not (run / "run.json").exists()
        assert run_at(server.base_url, queries, run, "--tool-format", "text") == 0  # not locked by the failed start
        assert server.probes == 2  # the failed start's request without tools, then the text-mode run's
    assert json.loads((run / "run.json").read_text())["settings"]["tool_format"] == "text"


def test_an_endpoint_that_is_not_an_api_root_fails_at_start(tmp_path, sample_world, capsys):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:1])
    with ScriptedServer(answering(plans)) as server:
        elsewhere = server.base_url.removesuffix("/v1") + "/v2"
        assert run_at(elsewhere, queries, tmp_path / "a") == 2
        assert (f"{elsewhere}/chat/completions answered HTTP 404 (404: Not Found): --base-url must be the API root"
                in capsys.readouterr().err)
        assert run_at(server.base_url + "/chat/completions", queries, tmp_path / "b") == 2
        assert f"drop '/chat/completions' (--base-url {server.base_url})" in capsys.readouterr().err
        assert server.completions == 0


def test_a_run_whose_every_request_failed_exits_non_zero_and_says_how_to_retry(tmp_path, sample_world, capsys):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:2])
    down = {"on": True}

    def script(request, attempt):
        return {"status": 503} if down["on"] else {"content": answer(plans[0])}

    run = tmp_path / "run"
    with ScriptedServer(script) as server:  # up at start-up, then every completion fails
        assert run_at(server.base_url, queries, run) == 1
        out = printed(capsys)
        assert "no trajectory ran: every one failed its requests (first: turn 1: HTTP 503" in out
        assert "2 trajectories failed (status 'error'" in out and "rerun the same command with --retry-failed" in out
        down["on"] = False
        assert run_at(server.base_url, queries, run, "--retry-failed") == 0
    assert [r["status"] for r in results(run)] == ["answered", "answered"]


def test_partial_failures_exit_zero_and_say_how_to_retry(tmp_path, sample_world, capsys):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:2])
    turns = {records[0]["query"]: [{"content": answer(plans[0])}], records[1]["query"]: [{"always": {"status": 500}}]}
    with ScriptedServer(model(turns)) as server:
        assert run_at(server.base_url, queries, tmp_path / "run") == 0
    out = printed(capsys)
    assert "1 trajectory failed (status 'error'" in out and "--retry-failed to run only those" in out


def test_text_the_run_prints_is_not_read_as_console_markup(tmp_path, sample_world, capsys):
    """A run directory (or a server's error) holding what looks like console markup is printed as it is."""
    queries, records, plans = sample_world
    write_jsonl(queries, records[:1])
    run = tmp_path / "runs[/bold]"
    with ScriptedServer(answering(plans)) as server:
        assert run_at(server.base_url, queries, run) == 0
    assert f"files in {run}:" in printed(capsys)


def test_queries_the_world_cannot_answer_are_refused_naming_their_cities(tmp_path, sample_world, capsys):
    queries, records, plans = sample_world
    write_jsonl(queries, [records[0], REAL])
    with ScriptedServer(answering(plans)) as server:
        for database in ([], ["--database", "sample"]):  # the default world, and the sample world asked for
            argv = ["rollout", str(queries), "--base-url", server.base_url, "--model", "scripted", "-o",
                    str(tmp_path / "run"), *database, *FAST]
            assert main(argv) == 2
            assert ("the bundled sample world does not know 'St. Petersburg', 'Rockford' (row 2 of queries.jsonl); "
                    "1 of 2 queries name places it lacks: pass --database") in capsys.readouterr().err
        assert server.completions == server.probes == 0 and not (tmp_path / "run").exists()


def test_a_tool_call_the_server_left_in_the_text_is_flagged(tmp_path, sample_world, capsys):
    """SGLang without --tool-call-parser leaves the model's <tool_call> in the reply text (no error): native
    mode then scores the call as the answer; the summary says so and what to fix."""
    queries, records, plans = sample_world
    write_jsonl(queries, records[:2])
    call = '<tool_call>{"name": "get_cities", "arguments": {"state": "Eastvale"}}</tool_call>'
    turns = {records[0]["query"]: [{"content": call}], records[1]["query"]: [{"content": answer(plans[1])}]}
    run = tmp_path / "run"
    with ScriptedServer(model(turns)) as server:
        assert run_at(server.base_url, queries, run) == 0
    assert ("1 final replies hold a <tool_call> block that the server did not turn into tool_calls, so it was scored "
            "as the answer: start vLLM with --enable-auto-tool-choice --tool-call-parser hermes") in printed(capsys)
    assert json.loads((run / "summary.json").read_text())["unparsed_tool_calls"] == 1
    with ScriptedServer(model(turns)) as server:
        assert rollout(queries, server, tmp_path / "text", "--tool-format", "text") == 0
    assert "unparsed_tool_calls" not in json.loads((tmp_path / "text" / "summary.json").read_text())
