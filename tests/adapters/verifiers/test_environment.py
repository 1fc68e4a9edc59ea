"""The verifiers environment through verifiers' own code: loaded as verifiers loads environments, and evaluated by
``vf-eval`` (its interception server, the ``null`` tool-calling harness in the subprocess runtime, the toolset as
an MCP server) against a scripted OpenAI-compatible server on 127.0.0.1.

One run covers: the 45 train queries answered with their gold plans (five with a hallucinated restaurant), whose
pass rate must equal ``planshape evaluate``'s on the same plans; the one-reward cases (each trace's reward, metrics
and failure equal the facade's); tool results equal ``ToolBox.call`` on the full database; bad tool calls and
missing answers scored with a reason, never an error of the rollout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from planshape.shaping.cli import main as planshape
from planshape.shaping.facade import Shaper, episode_records, query_json
from planshape.validators.travelplanner.query import gold_plan

from ...environments.cases import BAD_CALLS, cases, facade_view, good_calls, hallucinated
from ...rollout.scripted_model import answer, model
from ...rollout.scripted_server import ScriptedServer
from ..metric_keys import expected_keys

BROKEN = {3, 11, 20, 29, 41}
TASKSET = "planshape-travelplanner"
SCORE_GROUPS = ("core", "components", "failures", "monitor")  # all but the advantages: an env scores, no more


def settings(shared_dir: Path) -> dict:
    return {"database": str(shared_dir / "database"), "mode": "strict"}


def test_loads_as_verifiers_loads_environments(shared_dir):
    import planshape_travelplanner
    import verifiers.v1 as vf

    config = vf.resolve_env_config({"taskset": {"id": TASKSET, "queries": [str(shared_dir / "train.csv")],
                                                "split": "validation", "val_size": 9,
                                                "planshape": settings(shared_dir)}})
    env = vf.load_environment(config)
    assert type(env) is planshape_travelplanner.TravelPlannerEnv
    assert config.agent.max_turns == 30 and config.agent.harness.id == "null"
    assert config.agent.runtime.type == "subprocess"
    shaper = Shaper.from_mapping({**settings(shared_dir), "total_steps": 1})
    expected = episode_records(shaper, [shared_dir / "train.csv"], "validation", 9)
    tasks = list(vf.load_taskset(config.taskset))
    assert len(tasks) == 9
    for task, record in zip(tasks, expected, strict=True):
        system, user = shaper.messages(record)
        assert (task.data.system_prompt, task.data.prompt) == (system["content"], user["content"])
        assert json.loads(task.data.query) == json.loads(query_json(record))
    (toolset,) = type(vf.load_taskset(config.taskset)).toolsets(config.taskset)
    assert toolset.TOOL_PREFIX is None and toolset.config.planshape == settings(shared_dir)


def test_a_verifiers_release_other_than_04_is_refused():
    from planshape.adapters.verifiers.version import check_version
    from planshape.shaping.facade import UnsupportedRelease

    assert check_version().startswith("0.4.")
    with pytest.raises(UnsupportedRelease, match=r"supports verifiers 0\.4\.0 to 0\.4\.x, found verifiers 0\.5\.0: "
                                                 r"pip install 'verifiers>=0\.4\.0,<0\.5'"):
        check_version("0.5.0")


def vf_eval(tmp: Path, rows: list[dict], turns: dict, database: Path, extra: str = "") -> dict[str, dict]:
    """``vf-eval`` (verifiers' CLI, in a subprocess) on ``rows`` against the scripted ``turns``; the traces by
    query text."""
    queries = tmp / "queries.jsonl"
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with ScriptedServer(model(turns)) as server:
        config = tmp / "eval.toml"
        config.write_text(f"""model = "scripted"
max_concurrent = 16
push = false
output_dir = "{tmp / 'out'}"

[client]
base_url = "{server.base_url}"
api_key_var = "OPENAI_API_KEY"

[env.taskset]
id = "{TASKSET}"
queries = ["{queries}"]

[env.taskset.planshape]
database = "{database}"
mode = "strict"
{extra}""")
        bin_dir = Path(sys.executable).parent  # the venv's uv runs the harness (verifiers looks on PATH)
        run = subprocess.run([str(bin_dir / "vf-eval"), "@", str(config), "--no-rich"], capture_output=True,
                             text=True, timeout=900, env={**os.environ, "OPENAI_API_KEY": "EMPTY",
                                                          "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    assert run.returncode == 0, run.stderr[-3000:]
    (traces_file,) = (tmp / "out").glob("*/traces.jsonl")
    traces = {}
    for episode in (json.loads(line) for line in traces_file.read_text().splitlines()):
        (trace,) = episode["traces"]
        traces[next(n["message"]["content"] for n in trace["nodes"] if n["message"]["role"] == "user")] = trace
    assert len(traces) == len(rows)
    return traces


def tool_texts(trace: dict) -> list[str]:
    results = [n["message"]["content"] for n in trace["nodes"] if n["message"]["role"] == "tool"]
    return [r if isinstance(r, str) else "".join(p.get("text", "") for p in r) for r in results]


def planned(records: list[dict], broken: set[int] = frozenset()) -> dict:
    """The scripted turns of ``records``: the planner's tool calls, then the gold plan (hallucinated if broken)."""
    return {r["query"]: [{"tool_calls": [(n, json.dumps(a)) for n, a in good_calls(r)]},
                         {"content": answer(hallucinated(gold_plan(r)) if i in broken else gold_plan(r))}]
            for i, r in enumerate(records)}


@pytest.fixture(scope="module")
def evaluated(shared_dir, tmp_path_factory):
    """One ``vf-eval`` run over the train queries and the one-reward cases; returns (rows, traces by query text)."""
    from planshape.validators.travelplanner.query import read_records

    tmp = tmp_path_factory.mktemp("vf")
    train = read_records(shared_dir / "train.csv")
    rows, turns = list(train), planned(train, BROKEN)
    for name, text, record in cases(train):
        row = {**record, "query": f"{record['query']} [case {name}]"}
        bad = [(n, a if isinstance(a, str) else json.dumps(a)) for n, a in BAD_CALLS]
        turns[row["query"]] = [{"tool_calls": bad}, {"content": text}]
        rows.append(row)
    return rows, vf_eval(tmp, rows, turns, shared_dir / "database"), tmp


def test_eval_pass_rate_equals_planshape_evaluate(evaluated, shared_dir, train_records):
    rows, traces, tmp = evaluated
    plans = [hallucinated(gold_plan(r)) if i in BROKEN else gold_plan(r) for i, r in enumerate(train_records)]
    gold = tmp / "plans.jsonl"
    gold.write_text("".join(json.dumps({"idx": i, "plan": p}) + "\n" for i, p in enumerate(plans)))
    assert planshape(["evaluate", str(gold), "--queries", str(shared_dir / "train.csv"), "--database",
                      str(shared_dir / "database"), "--mode", "strict", "--split", "train", "--no-progress",
                      "--json", str(tmp / "report.json")]) == 0
    report = json.loads((tmp / "report.json").read_text())
    train = [traces[r["query"]] for r in train_records]
    assert all(t["ok"] and t["stop_condition"] == "agent_completed" for t in train)
    pass_rate = sum(t["metrics"]["planshape/pass"] for t in train) / len(train)
    assert pass_rate == report["metrics"]["rates"]["final_pass_rate"] == 40 / 45
    shaper = Shaper.from_mapping({**settings(shared_dir), "total_steps": 1})
    for i, trace in enumerate(train):
        assert (trace["rewards"]["planshape"]["score"] == shaper.max_reward(0)) == (i not in BROKEN)


def test_each_trace_gives_the_facade_score(evaluated, shared_dir, train_records):
    rows, traces, _ = evaluated
    shaper = Shaper.from_mapping({**settings(shared_dir), "total_steps": 1})
    box = shaper.tools()
    for name, text, record in cases(train_records):
        row = {**record, "query": f"{record['query']} [case {name}]"}
        trace = traces[row["query"]]
        want = facade_view(shaper.score(text, row, 0))
        assert trace["ok"], (name, trace["errors"])
        assert trace["rewards"] == {"planshape": {"score": want["reward"], "weight": 1.0}}, name
        assert trace["metrics"] == want["metrics"], name
        assert set(trace["metrics"]) == expected_keys(SCORE_GROUPS)  # the names every trainer logs
        assert trace["info"]["planshape"]["failure"] == want["failure"], name
        assert trace["info"]["planshape"]["reason"] == want["reason"], name
        results = tool_texts(trace)
        assert len(results) == len(BAD_CALLS) and all("rror" in r for r in results), (name, results)
    for record in train_records[:5]:  # tool results over the real protocol equal the toolbox's
        assert tool_texts(traces[record["query"]]) == [box.call(n, a) for n, a in good_calls(record)]


ROOT = Path(__file__).resolve().parents[3]
CORE_PLANSHAPE = ROOT / ".venv" / "bin" / "planshape"


@pytest.mark.skipif(not CORE_PLANSHAPE.exists(), reason="needs the core venv's `planshape mcp` (scripts/setup.sh)")
def test_the_tools_from_planshape_mcp(shared_dir, train_records, tmp_path):
    """The validators' own MCP server (``planshape mcp``, from the core venv: its mcp pin differs) as the
    toolset, through ``tools.url``: the same tool results and rewards."""
    import socket
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([str(CORE_PLANSHAPE), "mcp", "--transport", "http", "--port", str(port),
                               "--database", str(shared_dir / "database")], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None and time.monotonic() < deadline, "planshape mcp did not start"
            time.sleep(0.2)
        records = train_records[:3]
        traces = vf_eval(tmp_path, records, planned(records), shared_dir / "database",
                         f'\n[env.taskset.tools]\nurl = "http://127.0.0.1:{port}/mcp"\n')
    finally:
        server.terminate()
        server.wait(timeout=30)
    shaper = Shaper.from_mapping({**settings(shared_dir), "total_steps": 1})
    box = shaper.tools()
    for record in records:
        trace = traces[record["query"]]
        assert tool_texts(trace) == [box.call(n, a) for n, a in good_calls(record)]
        assert trace["rewards"]["planshape"]["score"] == shaper.max_reward(0)
