"""TravelPlanner records to TRL's dataset: the facade's prompt, and a query column the reward reads back."""

from __future__ import annotations

import json

import pytest


def test_rows_hold_the_prompt_and_the_query(shaper, sample_records):
    from planshape.adapters.trl.data import to_dataset

    data = to_dataset(sample_records, shaper)
    assert data.column_names == ["prompt", "planshape_query"] and len(data) == len(sample_records)
    for row, record in zip(data, sample_records, strict=True):
        assert row["prompt"] == shaper.messages(record)
        assert json.loads(row["planshape_query"]) == record


def test_reward_reads_the_dataset_back(shaper, sample_records, sample_rollouts):
    from planshape.adapters.trl.data import to_dataset
    from planshape.adapters.trl.reward import PlanshapeReward

    data = to_dataset(sample_records, shaper)
    passing = [r["text"] for r in sample_rollouts if r["trajectory"] == 0]
    rewards = PlanshapeReward(shaper)(prompts=data["prompt"], completions=passing,
                                      planshape_query=data["planshape_query"])
    assert rewards == [5.0, 5.0]


def test_train_csv(shaper, shared_dir):
    from planshape.adapters.trl.data import load_queries

    data = load_queries(shared_dir / "train.csv", shaper)
    assert len(data) == 45
    assert len(load_queries(shared_dir / "train.csv", shaper, limit=3)) == 3
    assert all(row["prompt"][1]["content"] == json.loads(row["planshape_query"])["query"] for row in data)


def test_bad_record_names_its_number(shaper, sample_records, tmp_path):
    from planshape.adapters.trl.data import prepare_data, rows

    with pytest.raises(ValueError, match="record 2"):
        rows([sample_records[0], {**sample_records[0], "query": ""}], shaper)
    path = tmp_path / "rows.jsonl"
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sample_records))
    assert prepare_data(shaper, [tmp_path / "queries.jsonl"], path)["train"]["rows"] == 2
    from datasets import load_dataset

    assert load_dataset("json", data_files=str(path), split="train")["planshape_query"] == \
        [json.dumps(r, ensure_ascii=False) for r in sample_records]
