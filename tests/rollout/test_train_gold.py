"""The 45 train queries of the real data, rolled out with a model that answers with the gold plans (and a
hallucinated restaurant for five): the metrics equal ``planshape evaluate`` on those plans, and every gold
plan passes in both modes (official metrics, strict reward)."""

from __future__ import annotations

import copy
import json

from planshape.shaping.cli import main
from planshape.validators.travelplanner.query import gold_plan

from .conftest import write_jsonl
from .scripted_model import answer, model
from .scripted_server import ScriptedServer

BROKEN = {3, 11, 20, 29, 41}


def hallucinated(plan: list) -> list:
    plan = copy.deepcopy(plan)
    city = plan[1]["current_city"].split(" to ")[-1]
    plan[1]["dinner"] = f"The Imaginary Bistro, {city}"
    return plan


def test_train_gold_plans_through_a_served_model(tmp_path, shared_dir, train_records):
    texts = [r["query"] for r in train_records]
    assert len(set(texts)) == len(texts)
    plans = [hallucinated(gold_plan(r)) if i in BROKEN else gold_plan(r) for i, r in enumerate(train_records)]
    turns = {r["query"]: [{"tool_calls": [("search_flights", json.dumps({
        "origin": r["org"], "destination": plan[0]["current_city"].split(" to ")[-1], "date": r["date"][2:12]}))]},
        {"content": answer(plan)}] for r, plan in zip(train_records, plans, strict=True)}
    queries = shared_dir / "train.csv"
    database = str(shared_dir / "database")
    run = tmp_path / "run"
    with ScriptedServer(model(turns)) as server:
        assert main(["rollout", str(queries), "--base-url", server.base_url, "--model", "scripted", "-o", str(run),
                     "--database", database, "--split", "train", "--concurrency", "8", "--no-progress"]) == 0
    expected = write_jsonl(tmp_path / "gold.jsonl", [{"idx": i, "plan": p} for i, p in enumerate(plans)])
    assert main(["evaluate", str(expected), "--queries", str(queries), "--database", database, "--split", "train",
                 "--no-progress", "--json", str(tmp_path / "gold.json")]) == 0
    report, by_evaluate = (json.loads((p).read_text()) for p in (run / "report.json", tmp_path / "gold.json"))
    for key in ("metrics", "breakdown", "per_constraint", "plans"):
        assert report[key] == by_evaluate[key], key
    assert report["metrics"]["numerators"]["final_pass_rate"] == 45 - len(BROKEN)
    rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert all(r["score"]["success"] == (r["idx"] not in BROKEN) for r in rows)  # strict reward
    assert all(r["tool_calls"] == 1 and not r["transcript"][2]["content"].startswith("Error") for r in rows)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["monitor"]["exploit_rate"] == 0.0 and summary["reward"]["success_rate"] == 40 / 45
