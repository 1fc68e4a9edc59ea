"""The solver's witnesses as SFT data (``planshape synth --sft``), read by TRL's own SFT code: ``datasets`` loads the
JSONL, ``SFTTrainer`` renders each conversation through a chat template with its tools (TRL reads the ``tools``
column's JSON text), masks the assistant turns and trains a step of a tiny model built in-process. Also: the
synthesized queries through VERL's data step (it needs pyarrow, which this venv has)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

pytest.importorskip("ortools", reason="the solver needs OR-Tools (scripts/setup-trl.sh installs planshape[solver])")


@pytest.fixture(scope="module")
def synthesized(shared_dir, tmp_path_factory):
    from planshape.shaping.cli import main

    out = tmp_path_factory.mktemp("synth")
    assert main(["synth", "--n", "3", "--database", str(shared_dir / "database"), "-o", str(out / "queries.jsonl"),
                 "--sft", str(out / "sft.jsonl"), "--seed", "5", "--no-progress"]) == 0
    return out


def test_trl_sft_trains_on_the_witnesses(synthesized, tmp_path):
    import math

    from datasets import load_dataset
    from planshape.adapters.trl.tiny import tiny_model, tiny_tokenizer
    from trl import SFTConfig, SFTTrainer

    data = load_dataset("json", data_files=str(synthesized / "sft.jsonl"), split="train")
    assert len(data) == 3
    corpus = [m["content"] or "" for row in data for m in row["messages"]] + [row["tools"] for row in data]
    tokenizer = tiny_tokenizer(corpus, vocab_size=4096)
    # Qwen3's training template (Planner-R1's models): it takes OpenAI-style arguments as JSON text, and marks the
    # assistant turns so that only they are trained on.
    tokenizer.chat_template = (resources.files("trl") / "chat_templates" / "qwen3_training.jinja").read_text()
    trainer = SFTTrainer(model=tiny_model(tokenizer, max_positions=8192), processing_class=tokenizer,
                         train_dataset=data,
                         args=SFTConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=1,
                                        max_length=4096, assistant_only_loss=True, report_to=[], save_strategy="no",
                                        use_cpu=True, logging_steps=1))
    assert len(trainer.train_dataset) == 3  # each keeps assistant turns within max_length: none is dropped
    for row in trainer.train_dataset:  # only the assistant turns are trained on: some tokens are, not all
        trained = sum(label != -100 for label in row["labels"])
        assert 0 < trained < len(row["labels"])
    text = tokenizer.decode(tokenizer.apply_chat_template(data[0]["messages"], tools=json.loads(data[0]["tools"]),
                                                          tokenize=True, return_dict=True)["input_ids"])
    assert "<tool_call>" in text and '"arguments": {"' in text  # one JSON object, not quoted text
    assert "search_accommodations" in text and "<answer>" in text
    result = trainer.train()
    assert math.isfinite(result.training_loss)


def test_verl_data_step_reads_the_synthesized_queries(synthesized, tmp_path):
    from planshape.shaping.cli import main

    assert main(["verl", "prepare-data", str(synthesized / "queries.jsonl"), "-o", str(tmp_path), "--val-size",
                 "1"]) == 0
    import pandas as pd

    assert len(pd.read_parquet(tmp_path / "train.parquet")) + len(pd.read_parquet(tmp_path / "val.parquet")) == 3
