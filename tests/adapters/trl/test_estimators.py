"""GiGPO and RLOO in TRL: the real ``GRPOTrainer`` step (TRL's own tool loop, or a ``rollout_func``), a reward that
is not planshape's, no TravelPlanner files; the advantages the loss uses equal plain loops of the estimators'
equations (``tests/paper_reference.py``), token for token. GiGPO's anchor states come from the tool calls in the
completions (``anchor.by=tool_calls``) or from a ``rollout_func`` field (``anchor.by=state``)."""

from __future__ import annotations

import pytest
import torch

from ...paper_reference import gigpo_reference, rloo_reference, runs, token_reference
from .scripted import lookup_tokenizer, recording, scripted_lookup
from .test_any_task import PROMPTS, lookup, task_reward
from .test_trainer import loss_rows_match

G = 4
# The tool-call argument of each position in a group (turn 1) and its answer (turn 2): positions 0, 1 and 3 look
# up the same item, so their second turns are taken in one state (the same call so far)
ITEMS = ["key", "key", "lamp", "key"]
ANSWERS = ["DONE: door open", "I give up", "DONE: I used the lamp and the key and the door is open now", "DONE"]


def scripted(base: type) -> type:
    return scripted_lookup(base, ITEMS, ANSWERS)


@pytest.fixture(scope="module")
def any_tokenizer():
    return lookup_tokenizer(PROMPTS, ITEMS, ANSWERS)


def _trainer(tokenizer, tmp_path, planshape, cls_of=scripted, **overrides):
    from datasets import Dataset
    from planshape.adapters.trl.tiny import tiny_model
    from planshape.adapters.trl.trainer import PlanPOTrainer
    from trl import GRPOConfig

    settings = dict(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=2 * G, num_generations=G,
                    max_completion_length=256, learning_rate=1e-3, use_cpu=True, bf16=False, beta=0.0,
                    dataloader_num_workers=0, seed=0, report_to="none", save_strategy="no", logging_steps=1,
                    max_tool_calling_iterations=2, loss_type="grpo")
    trainer_kwargs = {"tools": overrides.pop("tools", [lookup]), "rollout_func": overrides.pop("rollout_func", None)}
    data = overrides.pop("data", None) or Dataset.from_list([{"prompt": [{"role": "user", "content": p}]}
                                                             for p in PROMPTS])
    settings.update(overrides)
    cls = recording(cls_of(PlanPOTrainer), "batches")
    return cls(model=tiny_model(tokenizer), reward_funcs=[task_reward], args=GRPOConfig(**settings),
               train_dataset=data, processing_class=tokenizer, planshape=planshape, **trainer_kwargs)


def _batches(trainer):
    assert len(trainer.batches) == 2
    return zip(trainer.batches, [trainer.batches_loss[:1], trainer.batches_loss[1:]], strict=True)


def test_gigpo_over_the_tool_calls_equals_its_equations(any_tokenizer, tmp_path):
    trainer = _trainer(any_tokenizer, tmp_path, {"estimator": "gigpo", "anchor": {"by": "tool_calls"}})
    trainer.train()
    for batch, losses in _batches(trainer):
        out = batch["output"]
        mask = (out["completion_mask"] * out["tool_mask"]).tolist()
        lengths = [[end - start for start, end in runs(row)] for row in mask]
        assert all(len(t) == 2 for t in lengths)  # a tool call, then the answer
        scores = batch["rewards_per_func"][:, 0].tolist()
        # the state before each turn: the calls made so far (none, then the lookup of this position's item)
        states = [[(), (("lookup", ITEMS[i % G]),)] for i in range(len(mask))]
        per_turn = gigpo_reference([i // G for i in range(len(mask))], scores, lengths, states)
        expected = torch.tensor(token_reference(mask, per_turn), dtype=torch.float32)
        torch.testing.assert_close(out["advantages"].float(), expected, rtol=1e-5, atol=1e-6)
        assert loss_rows_match(out, losses) == 2 * G  # the loss used exactly these advantages
    logged = trainer.state.log_history[0]
    assert logged["planshape/alpha"] == 1.0 and logged["planshape/adv_s_std"] > 0


def test_rloo_equals_its_equation(any_tokenizer, tmp_path):
    trainer = _trainer(any_tokenizer, tmp_path, {"estimator": "rloo"})
    trainer.train()
    for batch, losses in _batches(trainer):
        out = batch["output"]
        mask = (out["completion_mask"] * out["tool_mask"]).tolist()
        lengths = [[end - start for start, end in runs(row)] for row in mask]
        scores = batch["rewards_per_func"][:, 0].tolist()
        per_turn = rloo_reference([i // G for i in range(len(mask))], scores, lengths)
        expected = torch.tensor(token_reference(mask, per_turn), dtype=torch.float32)
        torch.testing.assert_close(out["advantages"].float(), expected, rtol=1e-5, atol=1e-6)
        assert loss_rows_match(out, losses) == 2 * G


ROOMS = ["hall", "hall", "attic", "hall"]  # where each position's first move takes it


def room_rollout(prompts, trainer):
    """A rollout_func of the run's own: move, observe the room, open the door; per-turn state ids beside it."""
    tok = trainer.processing_class
    prompt_ids, completion_ids, env_mask, anchors = [], [], [], []
    for i, prompt in enumerate(prompts):
        room, answer = ROOMS[i % G], ANSWERS[i % G]
        move = tok.encode(f"go to {room}", add_special_tokens=False) + [tok.eos_token_id]
        seen = tok.encode(f"\nYou are in the {room}.\n", add_special_tokens=False)
        last = tok.encode(answer, add_special_tokens=False) + [tok.eos_token_id]
        prompt_ids.append(tok.encode(prompt, add_special_tokens=False))
        completion_ids.append(move + seen + last)
        env_mask.append([1] * len(move) + [0] * len(seen) + [1] * len(last))
        anchors.append(["start", room])
    return {"prompt_ids": prompt_ids, "completion_ids": completion_ids, "logprobs": None, "env_mask": env_mask,
            "anchors": anchors}


def test_gigpo_over_rollout_func_states_equals_its_equations(any_tokenizer, tmp_path):
    from datasets import Dataset

    data = Dataset.from_list([{"prompt": p} for p in PROMPTS])
    trainer = _trainer(any_tokenizer, tmp_path, {"estimator": "gigpo"}, cls_of=lambda base: base, tools=None,
                       rollout_func=room_rollout, data=data)
    trainer.train()
    for batch, losses in _batches(trainer):
        out = batch["output"]
        mask = (out["completion_mask"] * out["tool_mask"]).tolist()
        lengths = [[end - start for start, end in runs(row)] for row in mask]
        assert all(len(t) == 2 for t in lengths)
        scores = batch["rewards_per_func"][:, 0].tolist()
        states = [["start", ROOMS[i % G]] for i in range(len(mask))]
        per_turn = gigpo_reference([i // G for i in range(len(mask))], scores, lengths, states)
        expected = torch.tensor(token_reference(mask, per_turn), dtype=torch.float32)
        torch.testing.assert_close(out["advantages"].float(), expected, rtol=1e-5, atol=1e-6)
        assert loss_rows_match(out, losses) == 2 * G


def test_gigpo_without_states_says_where_they_come_from(any_tokenizer, tmp_path):
    trainer = _trainer(any_tokenizer, tmp_path, {"estimator": "gigpo", "anchor": {"by": "state"}})
    with pytest.raises(ValueError, match="anchor.by=state: completion 0 has no list 'anchors'"):
        trainer.train()
