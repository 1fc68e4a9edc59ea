"""Estimator-only PlanPO in TRL: the real ``GRPOTrainer`` step with a multi-turn tool loop that is not
TravelPlanner's, a reward of 10 on success (else 0) that is not planshape's, and no TravelPlanner files; the
advantages the loss uses equal the paper's equations in plain loops (``tests/paper_reference.py``), token for
token, with success from the reward's threshold or from another reward function's 0/1 flag."""

from __future__ import annotations

from .conftest import require_trl

require_trl("planpo_trainer")  # PlanPOTrainer on a task of its own


import pytest
import torch

from ...paper_reference import planpo_reference, runs, token_reference
from .scripted import lookup_tokenizer, recording, scripted_lookup
from .test_trainer import loss_rows_match

G = 4
PROMPTS = ["Open the red door.", "Open the blue door."]
# Per position in a group: the tool-call argument (turn 1) and the answer (turn 2); lengths differ on purpose.
ITEMS = ["key", "golden key with a long tag", "lamp", "map of the house"]
ANSWERS = ["DONE: door open", "DONE: I used the key and the door is open now", "I give up", "DONE"]


def lookup(item: str) -> str:
    """Look up where an item is.

    Args:
        item: the item to look for.
    """
    return f"{item}: on the shelf"


def task_reward(completions, **_):  # ALFWorld-style: 10 on success, else 0
    return [10.0 if "DONE" in (c[-1]["content"] if isinstance(c, list) else c) else 0.0 for c in completions]


def solved(completions, **_):  # a per-sample 0/1 flag the run already computes
    return [1.0 if r else 0.0 for r in task_reward(completions)]


def scripted_any(base: type) -> type:
    return scripted_lookup(base, ITEMS, ANSWERS)


@pytest.fixture(scope="module")
def any_tokenizer():
    return lookup_tokenizer(PROMPTS, ITEMS, ANSWERS)


def _trainer(tokenizer, tmp_path, planshape, reward_funcs, **overrides):
    from datasets import Dataset
    from planshape.adapters.trl.tiny import tiny_model
    from planshape.adapters.trl.trainer import PlanPOTrainer
    from trl import GRPOConfig

    settings = dict(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=2 * G, num_generations=G,
                    max_completion_length=256, learning_rate=1e-3, use_cpu=True, bf16=False, beta=0.0,
                    dataloader_num_workers=0, seed=0, report_to="none", save_strategy="no", logging_steps=1,
                    max_tool_calling_iterations=2, loss_type="grpo")
    settings.update(overrides)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": p}]} for p in PROMPTS])
    cls = recording(scripted_any(PlanPOTrainer), "batches")
    return cls(model=tiny_model(tokenizer), reward_funcs=reward_funcs, args=GRPOConfig(**settings),
               train_dataset=data, processing_class=tokenizer, tools=[lookup], planshape=planshape)


@pytest.mark.parametrize("success", [{"by": "threshold", "threshold": 10}, {"by": "flag", "flag": "solved"}])
def test_estimator_only_step_equals_the_paper(any_tokenizer, tmp_path, success):
    trainer = _trainer(any_tokenizer, tmp_path, {"success": success}, [task_reward, solved],
                       reward_weights=[1.0, 0.0])
    trainer.train()
    assert trainer.shaper.estimator_only and trainer.shaper.config.total_steps == 2  # from max_steps
    assert len(trainer.batches) == 2
    for batch, losses in zip(trainer.batches, [trainer.batches_loss[:1], trainer.batches_loss[1:]], strict=True):
        out, step = batch["output"], batch["step"]
        mask = (out["completion_mask"] * out["tool_mask"]).tolist()
        lengths = [[end - start for start, end in runs(row)] for row in mask]
        assert all(len(t) == 2 for t in lengths)  # a tool call, then the answer
        scores = batch["rewards_per_func"][:, 0].tolist()
        assert sorted(set(scores)) == [0.0, 10.0]
        alpha = 0.1 - 0.05 * step / 2
        per_turn = planpo_reference([i // G for i in range(len(mask))], scores, [s == 10 for s in scores],
                                    lengths, alpha)
        expected = torch.tensor(token_reference(mask, per_turn), dtype=torch.float32)
        torch.testing.assert_close(out["advantages"].float(), expected, rtol=1e-5, atol=1e-6)
        assert out["advantages"].abs().sum() > 0
        assert loss_rows_match(out, losses) == 2 * G  # the loss used exactly these advantages


def test_estimator_only_mistakes_fail_at_start_up(any_tokenizer, tmp_path):
    from planshape.shaping.facade import ConfigError

    with pytest.raises(ConfigError, match="names no reward function"):
        _trainer(any_tokenizer, tmp_path, {"success": {"by": "flag", "flag": "acc"}}, [task_reward])
    with pytest.raises(ConfigError, match="no TravelPlanner final pass"):
        _trainer(any_tokenizer, tmp_path, {}, [task_reward])
    with pytest.raises(ConfigError, match="mode: set without a database"):
        _trainer(any_tokenizer, tmp_path, {"success": {"by": "threshold", "threshold": 10}, "mode": "official"},
                 [task_reward])
