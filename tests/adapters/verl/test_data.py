"""`planshape verl prepare-data`: queries -> parquet that VERL's RLHFDataset reads, and whose rows score."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import csv
import json
import subprocess
import sys
from collections import Counter

import pandas as pd
from planshape.adapters.verl.reward import compute_score

from .conftest import EXAMPLES
from .helpers import answer, verl_config


def _prepare(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "planshape.shaping.cli", "verl", "prepare-data", *args],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def prepared(shared_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("parquet")
    done = _prepare(str(shared_dir / "train.csv"), "-o", str(out), "--val-size", "9", "--seed", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [f"train: 36 rows -> {out / 'train.parquet'}",
                                        f"val: 9 rows -> {out / 'val.parquet'}",
                                        f"load: data.train_files={out / 'train.parquet'} "
                                        f"data.val_files={out / 'val.parquet'}"]
    return out


def test_parquet_round_trips_with_the_row_layout(prepared, train_records):
    train, val = pd.read_parquet(prepared / "train.parquet"), pd.read_parquet(prepared / "val.parquet")
    assert len(train) + len(val) == 45
    row = train.iloc[0]
    assert row["data_source"] == "travelplanner" and row["agent_name"] == "tool_agent"
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    truth = json.loads(row["reward_model"]["ground_truth"])
    assert truth["query"] in row["prompt"][1]["content"]
    assert row["extra_info"]["split"] == "train" and row["extra_info"]["prompt_version"]
    # the split keeps the easy/medium/hard mix (Planner-R1 re-split 180/45 this way)
    levels = Counter(json.loads(t)["level"] for t in val["reward_model"].map(lambda r: r["ground_truth"]))
    assert levels == Counter({"easy": 3, "medium": 3, "hard": 3})
    queries = {json.loads(r["ground_truth"])["query"] for r in pd.concat([train, val])["reward_model"]}
    assert queries == {r["query"] for r in train_records}


def test_a_prepared_row_scores_its_gold_plan(prepared, shared_dir, train_records):
    from planshape.validators.travelplanner.plan.formats import from_upstream
    from planshape.validators.travelplanner.query import gold_plan

    row = pd.read_parquet(prepared / "val.parquet").iloc[0]
    truth = row["reward_model"]["ground_truth"]
    record = next(r for r in train_records if r["query"] == json.loads(truth)["query"])
    block = {"database": str(shared_dir / "database"), "estimator": "grpo"}
    result = compute_score(row["data_source"], answer(from_upstream(gold_plan(record))), truth, dict(row["extra_info"]),
                           planshape=block)
    assert (result["score"], result["failure"]) == (5.0, "")


def test_verl_dataset_reads_the_parquet(prepared, tokenizer, monkeypatch):
    from verl.utils.dataset.rl_dataset import RLHFDataset

    monkeypatch.setenv("PLANSHAPE_CONFIG", str(EXAMPLES / "planshape-8b.yaml"))
    monkeypatch.setenv("PLANSHAPE_DATABASE", "sample")
    cfg = verl_config(["data.max_prompt_length=100000", "data.filter_overlong_prompts=True",
                       f"actor_rollout_ref.rollout.multi_turn.tool_config_path={EXAMPLES / 'tools.yaml'}"])
    dataset = RLHFDataset(data_files=[str(prepared / "train.parquet")], tokenizer=tokenizer, config=cfg.data)
    assert len(dataset) == 36
    item = dataset[0]
    assert item["raw_prompt"][1]["role"] == "user" and item["agent_name"] == "tool_agent"
    assert json.loads(item["reward_model"]["ground_truth"])["org"]


def test_unusable_rows_are_refused_with_their_number(shared_dir, tmp_path):
    rows = list(csv.DictReader((shared_dir / "train.csv").open(encoding="utf-8")))[:3]
    rows[1]["budget"] = "a lot"
    bad = tmp_path / "bad.csv"
    with bad.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    done = _prepare(str(bad), "-o", str(tmp_path / "out"), "--val-size", "1")
    assert done.returncode == 2
    assert "row 2" in done.stderr and "budget" in done.stderr
    assert not (tmp_path / "out" / "train.parquet").exists()


def test_a_split_that_leaves_no_training_rows_fails_with_the_fix(shared_dir, tmp_path, capsys):
    """``prepare-data train.csv`` alone (45 queries, 45 validation rows by default) used to write 0 training rows
    with rc 0."""
    from planshape.shaping.cli import main

    assert main(["verl", "prepare-data", str(shared_dir / "train.csv"), "-o", str(tmp_path / "out")]) == 2
    assert "leaves no training rows: pass a smaller --val-size" in capsys.readouterr().err
    assert not (tmp_path / "out" / "train.parquet").exists()
