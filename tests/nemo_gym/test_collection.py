"""A real NeMo Gym 0.7 rollout collection against ``planshape serve``: NeMo Gym's own ``ng_run`` starts the
planshape resources server (``adapters/nemo_gym``), a scripted model server, its simple agent and two
environment servers (``legacy_agent``: the agent's ``/run``; ``single_agent_turn_legacy``: the session protocol,
seeded with a ``resources_session_id`` and a cookie, tools over direct HTTP, closed after verify), and
``ng_collect_rollouts`` collects every row, then calls ``/aggregate_metrics``.

The rows: the 45 train queries, each answered by the scripted model after tool calls (5 with a hallucinated
restaurant), the one-reward cases, a model answering after bad calls (unknown tool, bad argument names, arguments
that are not JSON), a stuck model (a bad call every turn, cut by the agent's max_steps), and failures that are not
the model's (a scoring process that dies, one past its budget, a label that is not a query). Every reward must
equal the in-process facade's; those failures must be masked (``mask_sample``, ``failure_kind``) and left out of
the aggregate, which must complete.

NeMo Gym needs Python >= 3.13.14: its venv is ``.venv-nemo-gym`` (``scripts/setup-nemo-gym.sh``); the test
itself runs in the core venv and drives NeMo Gym's commands. ``bash scripts/test.sh nemo-gym``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from planshape.shaping import Shaper
from planshape.shaping.facade import query_json

from tests.environments.bad_calls import BAD, check_answers, check_stuck
from tests.environments.cases import cases, good_calls, hallucinated
from tests.serve.server import free_port

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("PLANSHAPE_NEMO_GYM_VENV", ROOT / ".venv-nemo-gym"))
AGENT, SESSION_AGENT = "planshape_travelplanner_simple_agent", "planshape_travelplanner_session_agent"
BROKEN = {3, 11, 20, 29, 41}
MAX_STEPS = 30

pytestmark = pytest.mark.skipif(not (VENV / "bin" / "ng_run").exists(),
                                reason=f"NeMo Gym's venv {VENV} is missing: bash scripts/setup-nemo-gym.sh")


def _tools(shaper: Shaper) -> list[dict]:
    """The tools as a Responses request declares them (flat function tools)."""
    return [{"type": "function", "name": s["function"]["name"], "description": s["function"]["description"],
             "parameters": s["function"]["parameters"], "strict": False} for s in shaper.tool_schemas]


def _row(shaper: Shaper, record: dict, agent: str, text: str | None = None, label: object = None) -> dict:
    system, user = shaper.messages({**record, "query": text or record["query"]})
    task = json.loads(query_json(record)) if label is None else {"label": label}
    if text is not None:
        task["query"] = text
    return {"responses_create_params": {"input": [{"role": "developer", "content": system["content"]},
                                                  {"role": "user", "content": user["content"]}],
                                        "tools": _tools(shaper)},
            **task, "agent_ref": {"type": "responses_api_agents", "name": agent}}


def _calls(pairs: list[tuple[str, object]]) -> dict:
    return {"calls": [(name, a if isinstance(a, str) else json.dumps(a)) for name, a in pairs]}


@pytest.fixture(scope="module")
def collection(shared_dir, train_records, tmp_path_factory, request):
    """One ``ng_run`` + ``ng_collect_rollouts`` over every row; (rows, results by input order, the aggregate,
    the in-process facade, the scripted replies by row)."""
    from tests.stall_probe import install_stall_plugin

    tmp = tmp_path_factory.mktemp("nemo_gym")
    plugin = install_stall_plugin(tmp / "plugin")
    import sys

    from planshape.shaping import plugins

    sys.path.insert(0, str(plugin))  # the facade here scores with the same plugin as the server's workers
    plugins.reset()
    request.addfinalizer(lambda: (sys.path.remove(str(plugin)), plugins.reset()))
    settings = {"database": str(shared_dir / "database"), "mode": "strict", "schedule": "stage1",
                "sample_budget_s": 3.0}
    # the facade here: the server's settings but no budget (the budget is there to stop the server's SLEEP probe;
    # here the first score opens the store, which on a loaded machine can take longer than it)
    shaper = Shaper.from_mapping({**settings, "sample_budget_s": None, "total_steps": 1})
    rows, script, finals = [], {}, []
    bad = [(name, arguments) for _, name, arguments in BAD]
    for i, record in enumerate(train_records):  # the 45 train queries: tool calls, then the (broken) gold plan
        plan = hallucinated(Shaper_gold(record)) if i in BROKEN else Shaper_gold(record)
        final = _answer(plan)
        rows.append(_row(shaper, record, AGENT))
        script[shaper.messages(record)[1]["content"]] = [_calls(good_calls(record)), {"text": final}]
        finals.append((final, record))
    for name, text, record in cases(train_records):  # the one-reward cases, after the bad calls
        query = f"{record['query']} [case {name}]"
        rows.append(_row(shaper, record, AGENT, query))
        script[query] = [_calls(bad), {"text": text}]
        finals.append((text, {**record, "query": query}))
    stuck = f"{train_records[0]['query']} [stuck]"  # a bad call every turn: the agent's max_steps ends it
    rows.append(_row(shaper, train_records[0], AGENT, stuck))
    script[stuck] = [_calls(bad[:1])]
    finals.append(("", {**train_records[0], "query": stuck}))
    for word in ("DIE", "SLEEP"):  # failures that are not the model's: masked
        record = {**train_records[1], "query": f"{train_records[1]['query']} {word}"}
        rows.append(_row(shaper, record, AGENT))
        script[record["query"]] = [{"text": _answer(Shaper_gold(train_records[1]))}]
        finals.append((script[record["query"]][0]["text"], record))
    unreadable = f"{train_records[2]['query']} [unreadable label]"
    rows.append(_row(shaper, train_records[2], AGENT, unreadable, label="not a query"))
    script[unreadable] = [{"text": "no plan"}]
    finals.append(("no plan", None))
    for i, record in enumerate(train_records[:4]):  # the session protocol (cookies, close_session, direct HTTP)
        query = f"{record['query']} [session]"
        rows.append(_row(shaper, record, SESSION_AGENT, query))
        script[query] = [_calls(good_calls(record) + (bad if i == 3 else [])), {"text": finals[i][0]}]
        finals.append((finals[i][0], {**record, "query": query}))
    (tmp / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp / "script.json").write_text(json.dumps(script))
    config = _config(tmp, shared_dir, settings)
    env = {**os.environ, "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "NEMO_GYM_EXTRA_ROOTS": os.pathsep.join([str(ROOT / "adapters" / "nemo_gym"),
                                                    str(ROOT / "tests" / "nemo_gym")]),
           "PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.Popen([str(VENV / "bin" / "ng_run"), f"+config_paths=[{config}]"], cwd=tmp, env=env,
                           stdout=(tmp / "ng_run.log").open("wb"), stderr=subprocess.STDOUT)
    try:
        _wait_ready(run, tmp / "ng_run.log")
        start = time.monotonic()
        done = subprocess.run([str(VENV / "bin" / "ng_collect_rollouts"), f"+config_paths=[{config}]",
                               f"+input_jsonl_fpath={tmp / 'rows.jsonl'}", f"+output_jsonl_fpath={tmp / 'out.jsonl'}"],
                              cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
        took = time.monotonic() - start
    finally:
        run.terminate()
        try:
            run.wait(60)
        except subprocess.TimeoutExpired:
            run.kill()
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:], (tmp / "ng_run.log").read_text()[-3000:])
    results = {r["_ng_task_index"]: r for r in map(json.loads, (tmp / "out.jsonl").read_text().splitlines())}
    aggregate = json.loads((tmp / "out_aggregate_metrics.json").read_text())
    print(f"NeMo Gym collection: {len(results)} rollouts in {took:.1f} s")
    return rows, results, aggregate, shaper, finals


def Shaper_gold(record: dict) -> list:  # noqa: N802 - the gold plan, upstream format
    from planshape.validators.travelplanner.query import gold_plan

    return gold_plan(record)


def _answer(plan: list) -> str:
    from planshape.validators.travelplanner.plan.answer import answer_text
    from planshape.validators.travelplanner.plan.formats import from_upstream

    return f"Here is the plan.\n{answer_text(from_upstream(plan))}"


def _config(tmp: Path, shared_dir: Path, settings: dict) -> Path:
    """NeMo Gym's config: planshape's resources server block, the scripted model, both environment servers; the
    venvs NeMo Gym would build are the ones already here (``skip_venv_if_present``)."""
    venvs = tmp / "venvs"
    for kind, name, venv in (("responses_api_agents", "simple_agent", VENV),
                             ("environment_servers", "legacy_agent", VENV),
                             ("environment_servers", "single_agent_turn_legacy", VENV),
                             ("resources_servers", "planshape_travelplanner", ROOT / ".venv"),
                             ("responses_api_models", "scripted", ROOT / ".venv")):
        folder = venvs / kind / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ".venv").symlink_to(venv)
    config = tmp / "config.yaml"
    planshape = json.dumps(settings)
    config.write_text(f"""
config_paths:
  - {ROOT}/adapters/nemo_gym/resources_servers/planshape_travelplanner/configs/planshape_travelplanner.yaml
  - environment_servers/single_agent_turn_legacy/configs/single_agent_turn_legacy.yaml
head_server:
  host: 127.0.0.1
  port: {free_port()}
skip_venv_if_present: true
uv_venv_dir: {venvs}
planshape_travelplanner:
  resources_servers:
    planshape_travelplanner:
      planshape: {planshape}
      workers: 2
      max_turns: {MAX_STEPS}
planshape_travelplanner_simple_agent:
  responses_api_agents:
    simple_agent:
      max_steps: {MAX_STEPS}
{SESSION_AGENT}:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      resources_server:
        type: resources_servers
        name: planshape_travelplanner
      model_server:
        type: responses_api_models
        name: policy_model
      max_steps: {MAX_STEPS}
planshape_travelplanner_session_environment:
  _inherit_from: single_agent_turn_legacy
  environment_servers:
    single_agent_turn_legacy:
      resources_server:
        type: resources_servers
        name: planshape_travelplanner
      agent_server:
        type: responses_api_agents
        name: {SESSION_AGENT}
      resources_tool_transports:
      - direct_http
policy_model:
  responses_api_models:
    scripted:
      entrypoint: app.py
      script: {tmp / 'script.json'}
""")
    return config


def _wait_ready(run: subprocess.Popen, log: Path, timeout_s: float = 600.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        assert run.poll() is None, f"ng_run exited {run.returncode}:\n{text[-4000:]}"
        if re.search(r"All (\d+) / \1 servers ready", text):
            return
        time.sleep(1.0)
    raise AssertionError(f"NeMo Gym's servers were not ready in {timeout_s} s:\n{log.read_text()[-4000:]}")


def test_every_reward_is_the_facades(collection):
    rows, results, _, shaper, finals = collection
    assert len(results) == len(rows)  # every row collected, none lost
    for index, (text, record) in enumerate(finals):
        result = results[index]
        if record is None:
            continue  # the unreadable label: masked (below)
        if result.get("mask_sample"):
            continue
        want = shaper.score(text, record, 0)
        assert result["reward"] == want.reward, (index, result["failure"], want.failure, result["reason"])
        assert result["failure"] == want.failure and result["reward_components"] == want.components, index
    gold = [results[i] for i in range(45) if i not in BROKEN]
    assert all(r["reward"] == shaper.max_reward(0) and not r["mask_sample"] for r in gold)
    assert all(results[i]["reward"] < shaper.max_reward(0) for i in BROKEN)
    sessions = [results[i] for i in range(len(rows) - 4, len(rows))]
    assert [r["reward"] for r in sessions[:3]] == [shaper.max_reward(0)] * 3  # through the session protocol


def test_a_stuck_model_ends_and_bad_calls_read_as_in_every_standard(collection):
    """The bad-call checks (tests/environments/bad_calls.py): what NeMo Gym's agent posts for each call reaches the
    toolbox as the model wrote it, so it reads as the toolbox answers it, except arguments that are not JSON, which
    the agent answers itself; the agent's ``max_steps`` cuts a stuck model at the cap, and the verify reply says
    the cap ended it."""
    rows, results, _, shaper, _ = collection
    stuck = next(i for i, r in enumerate(rows) if r.get("query", "").endswith("[stuck]"))
    assert results[stuck]["reward"] == 0.0 and not results[stuck]["mask_sample"]
    check_stuck(results[stuck]["failure"], results[stuck]["reason"], None, MAX_STEPS)
    calls = [item for item in results[stuck]["response"]["output"] if item["type"] == "function_call"]
    assert len(calls) == MAX_STEPS  # every turn a call, cut at the cap
    outputs = [item["output"] for item in results[45]["response"]["output"] if item["type"] == "function_call_output"]
    try:  # NeMo Gym's agent reads the arguments itself and answers those that are not JSON (its own words)
        json.loads(BAD[2][2])
    except json.JSONDecodeError as exc:
        unreadable = json.dumps({"error": f"Invalid tool call arguments: {exc!r}"})
    check_answers(outputs, shaper.tools(), owned={"non-JSON arguments": unreadable})


def test_failures_that_are_not_the_models_are_masked_and_the_aggregate_completes(collection):
    rows, results, aggregate, _, _ = collection
    masked = {i: r for i, r in results.items() if r.get("mask_sample")}
    assert len(masked) == 3, {i: (r["failure"], r["reason"]) for i, r in masked.items()}
    assert {r["failure"] for r in masked.values()} == {"crash", "timeout", "error"}
    assert all(r["failure_kind"] == "verifier_error" and r["failure_reason"] for r in masked.values())
    (entry,) = [a for a in aggregate if a["agent_ref"]["name"] == AGENT]
    kept = [r for i, r in results.items() if not r.get("mask_sample") and r["agent_ref"]["name"] == AGENT]
    assert entry["agent_metrics"]["masked"] == 3
    assert entry["agent_metrics"]["mean/reward"] == pytest.approx(sum(r["reward"] for r in kept) / len(kept))
    assert entry["key_metrics"]["mean/planshape/pass"] == pytest.approx(
        sum(r["planshape/pass"] for r in kept) / len(kept))
