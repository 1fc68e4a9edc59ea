"""The contract on every supported TRL release (0.20.0, 1.9.0 and 1.16.0 in CI): the 45 gold plans get the
schedule's maximum through ``GRPOTrainer._calculate_rewards`` (TRL's own call of ``reward_funcs``, with its
``trainer_state``), and the planshape metrics reach ``trainer.state.log_history`` in a real ``train()`` step,
through ``log_metric`` (1.0+) or ``log_metrics_to`` (before). The tokenizer here needs nothing of TRL's (0.20 ships
no chat templates): plain-text prompts, a byte-level vocabulary built in-process.
"""

from __future__ import annotations

import pytest
from planshape.adapters.trl.support import LOG_METRIC, SUPPORT
from planshape.shaping.facade import gold_answer, query_json

from ..metric_keys import GROUPS, expected_keys, planshape_keys

VERSION = SUPPORT.check(__import__("trl").__version__)


@pytest.fixture(scope="module")
def byte_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {c: i for i, c in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<pad>",
                                   padding_side="left", model_input_names=["input_ids", "attention_mask"])


def _trainer(shaper, tokenizer, records, tmp_path, **overrides):
    from datasets import Dataset
    from planshape.adapters.trl.reward import PlanshapeReward, log_metrics_to
    from planshape.adapters.trl.tiny import tiny_model
    from trl import GRPOConfig, GRPOTrainer

    rows = [{"prompt": f"Plan this trip: {r['query']}\n", "planshape_query": query_json(r)} for r in records]
    settings = dict(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=4, num_generations=4,
                    max_completion_length=16, learning_rate=1e-3, use_cpu=True, bf16=False, beta=0.0, seed=0,
                    report_to="none", save_strategy="no", logging_steps=1, dataloader_num_workers=0)
    settings.update(overrides)
    trainer = GRPOTrainer(model=tiny_model(tokenizer, max_positions=4096), reward_funcs=[PlanshapeReward(shaper)],
                          args=GRPOConfig(**settings), train_dataset=Dataset.from_list(rows),
                          processing_class=tokenizer)
    if not SUPPORT.has(LOG_METRIC, VERSION):
        log_metrics_to(trainer)
    return trainer


def test_the_gold_plans_get_full_reward_through_trls_reward_call(shared_dir, train_records, byte_tokenizer,
                                                                 tmp_path):
    from planshape.shaping.facade import Shaper

    shaper = Shaper.from_mapping({"database": str(shared_dir / "database"), "schedule": "curriculum-8b",
                                  "total_steps": 500})
    trainer = _trainer(shaper, byte_tokenizer, train_records[:4], tmp_path)
    trainer.state.global_step = 150  # stage 2 of the 8B curriculum: TRL hands the reward this state
    inputs = [{"prompt": "p", "planshape_query": query_json(r)} for r in train_records]
    answers = [gold_answer(r) for r in train_records]
    ids = [byte_tokenizer.encode(a) for a in answers]
    trainer.model.train()
    rewards = trainer._calculate_rewards(inputs, ["p"] * len(inputs), answers, ids)
    assert len(train_records) == 45 and tuple(rewards.shape) == (45, 1)
    assert rewards[:, 0].tolist() == [shaper.max_reward(150)] * 45 == [3.0] * 45


def test_the_metrics_reach_trls_log_in_a_training_step(sample_records, byte_tokenizer, tmp_path):
    from planshape.shaping.facade import Shaper

    shaper = Shaper.from_mapping({"database": "sample", "estimator": "grpo"})
    trainer = _trainer(shaper, byte_tokenizer, sample_records, tmp_path)
    trainer.train()
    (entry,) = [e for e in trainer.state.log_history if "loss" in e]
    assert planshape_keys(entry) == expected_keys(g for g in GROUPS if g != "advantages")  # GRPOTrainer's own
    assert entry["planshape/reward"] == entry["rewards/planshape/mean"]  # the same rewards TRL logs itself


def test_the_adapter_states_what_this_release_runs():
    from planshape.adapters.trl.check import check_launch

    report = check_launch(config={"database": "sample", "estimator": "grpo"})
    assert report.lines[0] == f"trl {VERSION} (planshape supports {SUPPORT.range})"
    for what, ok, _ in SUPPORT.rows(VERSION):
        assert any(line.startswith("runs: " if ok else f"not in {VERSION}: ") and what in line for line in report.lines)
