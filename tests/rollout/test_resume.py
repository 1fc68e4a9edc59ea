"""A rollout killed with SIGKILL mid-run (and left with a torn last line) and rerun into the same directory
ends with the same files as an uninterrupted run: nothing lost, nothing duplicated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from planshape.shaping.cli import main

from .conftest import write_jsonl
from .scripted_model import answer, model
from .scripted_server import ScriptedServer

FILES = ("run.json", "results.jsonl", "submission.jsonl", "report.json", "summary.json")


def command(queries, server, out) -> list[str]:
    return ["rollout", str(queries), "--base-url", server.base_url, "--model", "scripted", "-o", str(out),
            "--database", "sample", "--concurrency", "2", "--no-progress", "--request-timeout", "5"]


def test_sigkill_then_rerun_equals_an_uninterrupted_run(tmp_path, sample_world):
    queries, records, plans = sample_world
    records = records * 2
    for i, record in enumerate(records):
        record["query"] = f"{record['query']} [row {i}]"
    write_jsonl(queries, records)
    turns = {r["query"]: [{"tool_calls": [("get_cities", '{"state": "Eastvale"}')]},
                          {"tool_calls": [("calculator", f'{{"expression": "{i} * 2"}}')]},
                          {"content": answer(plans[i % len(plans)]) if plans[i % len(plans)] else "no plan"}]
             for i, r in enumerate(records)}
    killed, fresh = tmp_path / "killed", tmp_path / "fresh"
    with ScriptedServer(model(turns), latency=0.05) as server:
        process = subprocess.Popen([sys.executable, "-m", "planshape.shaping.cli", *command(queries, server, killed)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        log = killed / "results.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not log.exists() or len(log.read_bytes().splitlines()) < 3):
            time.sleep(0.005)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        lines = log.read_bytes().splitlines()
        assert 3 <= len(lines) < len(records), "the run must be killed mid-way"
        assert not (killed / "submission.jsonl").exists()
        with open(log, "ab") as handle:  # as if killed in the middle of writing a line
            handle.write(b'{"idx": 7, "sample": 0, "query": "tor')
        assert main(command(queries, server, killed)) == 0
        assert main(command(queries, server, fresh)) == 0
    for name in FILES:
        assert (killed / name).read_bytes() == (fresh / name).read_bytes(), name
    rows = [json.loads(x) for x in (killed / "results.jsonl").read_text().splitlines()]
    assert [(r["idx"], r["sample"]) for r in rows] == [(i, 0) for i in range(len(records))]


def test_rerun_of_a_finished_run_needs_no_endpoint(tmp_path, sample_world):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:2])
    turns = {r["query"]: [{"content": answer(plans[0])}] for r in records[:2]}
    run = tmp_path / "run"
    with ScriptedServer(model(turns)) as server:
        assert main(command(queries, server, run)) == 0
    before = {name: (run / name).read_bytes() for name in FILES}
    assert main(command(queries, server, run)) == 0  # the server is gone: a finished run needs no endpoint
    assert before == {name: (run / name).read_bytes() for name in FILES}


def test_retry_failed_reruns_only_the_failed_trajectories(tmp_path, sample_world):
    queries, records, plans = sample_world
    write_jsonl(queries, records[:2])
    down = {"on": True}

    def script(request, attempt):
        user = request["messages"][1]["content"]
        if user == records[1]["query"] and down["on"]:
            return {"status": 503}
        return {"content": answer(plans[0])}

    run = tmp_path / "run"
    with ScriptedServer(script) as server:
        args = [*command(queries, server, run), "--retries", "0"]
        assert main(args) == 0
        assert json.loads((run / "summary.json").read_text())["status"] == {"answered": 1, "error": 1}
        down["on"] = False
        sent = server.completions
        assert main([*args, "--retry-failed"]) == 0
        assert server.completions == sent + 1
    rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["answered", "answered"]
