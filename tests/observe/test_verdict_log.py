"""The verdict log: compact records, a killed writer loses nothing up to its last flushed step, two
processes write at once without mixing lines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from planshape.shaping.observe.verdict_log import (
    CHECK_KEYS,
    VerdictLog,
    advantage_records,
    read_log,
    score_record,
    verdict_code,
)
from planshape.validators.travelplanner.checks.verdicts import check_plan

from ..travelplanner.helpers import ROCKFORD, rockford

BATCH = 32
WRITER = textwrap.dedent("""
    import os, sys, time
    from planshape.shaping.observe.verdict_log import VerdictLog
    directory, tag, steps, progress = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    log = VerdictLog(directory, meta={"tag": tag})
    step = 0
    while steps < 0 or step < steps:
        for i in range(BATCH_SIZE):
            log.add({"kind": "score", "step": step, "sample": i, "group": tag, "reward": 0.5,
                     "failure": "", "verdicts": "p" * 13, "pad": "x" * 200})
        log.flush(step)
        if log.flushed_step is not None:  # the writer's progress, as a trainer would see it
            with open(progress + ".tmp", "w") as f:
                f.write(str(log.flushed_step))
            os.replace(progress + ".tmp", progress)
        step += 1
    log.close()
""".replace("BATCH_SIZE", str(BATCH)))


def _spawn(tmp_path: Path, tag: str, steps: int) -> subprocess.Popen:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    return subprocess.Popen([sys.executable, str(script), str(tmp_path / "log"), tag, str(steps),
                             str(tmp_path / f"progress-{tag}")])


def test_records_carry_the_verdicts(database, tmp_path):
    result = check_plan(rockford(edits={(1, "breakfast"): "Nowhere, Rockford"}), ROCKFORD, database, "strict")
    code = verdict_code(result)
    assert len(code) == len(CHECK_KEYS) == 13
    assert code[CHECK_KEYS.index("is_valid_information_in_sandbox")] == "f"
    assert code[CHECK_KEYS.index("is_valid_restaurants")] == "p"
    assert code[8:] == "-----"  # Within Sandbox failed: hard checks not run
    assert verdict_code(None) == "-" * 13
    with VerdictLog(tmp_path, meta={"mode": "strict"}) as log:
        log.add(score_record(3, 0, 0.25, {"schema": 1.0, "pass": 0.0}, "commonsense:x", code,
                             official_pass=True, exploit=True, rules=["substring_match"], stage="stage1"))
        log.add_later(lambda: advantage_records(3, ["g", "g"], [1.0, 0.0], [True, False], [2, 1], [5, 7, 9],
                                                [0.7, -0.7], [0.1, -0.1, float("nan")]))
        log.flush(3)
        assert log.wait(5) and log.flushed_step == 3
    headers, records, skipped = read_log(tmp_path)
    assert skipped == 0 and headers[0]["mode"] == "strict" and headers[0]["checks"] == list(CHECK_KEYS)
    score, *adv = records
    assert score["verdicts"] == code and score["rules"] == ["substring_match"] and score["exploit"] is True
    assert [a["trajectory"] for a in adv] == [0, 1] and adv[0]["a_s"] == [0.1, -0.1] and adv[1]["turns"] == 1
    assert adv[0]["turn_lengths"] == [5, 7] and adv[1]["a_s"] == [None]  # NaN is written as null


def test_a_killed_writer_keeps_every_flushed_step(tmp_path):
    proc = _spawn(tmp_path, "killed", -1)
    progress = tmp_path / "progress-killed"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if progress.exists() and int(progress.read_text() or -1) >= 30:
            break
        time.sleep(0.02)
    else:
        proc.kill()
        pytest.fail("the writer made no progress")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    last = int(progress.read_text())
    _, records, skipped = read_log(tmp_path / "log")
    assert skipped <= 1  # at most the line being written when it died
    steps: dict[int, set] = {}
    for r in records:
        steps.setdefault(r["step"], set()).add(r["sample"])
    for step in range(last + 1):
        assert steps.get(step) == set(range(BATCH)), f"step {step} of {last} incomplete"


def test_two_processes_write_at_once(tmp_path):
    procs = [_spawn(tmp_path, tag, 200) for tag in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    files = sorted((tmp_path / "log").glob("verdicts-*.jsonl"))
    assert len(files) == 2  # one file per process
    headers, records, skipped = read_log(tmp_path / "log")
    assert skipped == 0 and sorted(h["tag"] for h in headers) == ["a", "b"]
    for tag in ("a", "b"):
        mine = {(r["step"], r["sample"]) for r in records if r["group"] == tag}
        assert mine == {(s, i) for s in range(200) for i in range(BATCH)}
    assert len(records) == 2 * 200 * BATCH


def test_a_forked_child_writes_its_own_file(tmp_path):
    log = VerdictLog(tmp_path)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            log.add({"kind": "score", "step": 0, "sample": 1})
            log.close()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    log.add({"kind": "score", "step": 0, "sample": 0})
    log.close()
    files = sorted(tmp_path.glob("verdicts-*.jsonl"))
    assert len(files) == 2
    samples = sorted(json.loads(line)["sample"] for f in files for line in f.read_text().splitlines()
                     if '"score"' in line)
    assert samples == [0, 1]


def test_torn_and_foreign_lines_are_skipped(tmp_path):
    (tmp_path / "verdicts-x-1-aa.jsonl").write_text('{"kind":"score","step":0}\n[1,2]\n{"kind":"sco')
    _, records, skipped = read_log(tmp_path)
    assert records == [{"kind": "score", "step": 0}] and skipped == 2
