"""``success.by=flag`` in VERL: the planshape V1 trainer hands the ``planpo`` estimator each row's success flag
from its ``reward_extra_info``, in both batch layouts, equal token for token to the paper's equations.

The reward is not planshape's: ``task_reward.compute_score`` (loaded by path) under VERL's ``naive`` reward-loop
manager, whose ``acc`` disagrees with the shaped score (a 10 that failed, an 8 that succeeded), so a success
read from the score would give other advantages. No TravelPlanner files. Rows go through VERL's own pieces as
in test_trainer.py: ``AgentLoopOutput.as_dict``, TransferQueue, the trainer's real advantage step.
"""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl("planshape_trainer")

from pathlib import Path

import numpy as np
import torch
from planshape.adapters.verl.check import check_launch
from planshape.adapters.verl.trainer import PlanshapeTrainer
from planshape.shaping.facade import ConfigError
from verl.experimental.agent_loop.agent_loop import AgentLoopOutput
from verl.trainer.ppo.padding_utils import upsample_batch_to_divisible_size
from verl.trainer.ppo.reward import load_reward_manager
from verl.trainer.ppo.v1 import get_trainer_cls
from verl.utils.skip.skip_manager import SkipManager
from verl.utils.tensordict_utils import list_of_dict_to_tensordict

from ...paper_reference import planpo_reference, runs, token_reference
from .helpers import queued, response_ids, reward_row, verl_config

TASK_REWARD = Path(__file__).with_name("task_reward.py")
ESTIMATOR_ONLY = ["algorithm.adv_estimator=planpo", "reward.reward_manager.name=naive",
                  f"reward.custom_reward_function.path={TASK_REWARD}",
                  "reward.custom_reward_function.name=compute_score",
                  "+algorithm.planpo.total_steps=150", "actor_rollout_ref.rollout.n=4", "data.train_batch_size=2"]
FLAG = ["+algorithm.planpo.success.by=flag", "+algorithm.planpo.success.flag=acc"]
PLANSHAPE = ["trainer.v1.trainer_mode=planshape", *ESTIMATOR_ONLY]
UIDS = ["a"] * 4 + ["b"] * 4
# (score, solved, assistant turns): success is `solved`, not a score of 10
ROLLOUTS = [(8.0, 1, 3), (10.0, 0, 2), (6.0, 1, 1), (0.0, 0, 4), (9.0, 1, 2), (9.5, 1, 3), (10.0, 0, 1), (2.0, 0, 2)]
STEP = 31  # VERL's global_steps: 30 completed, alpha = 0.1 - 0.05 * 30 / 150 = 0.09


def _turns(i: int, score: float, solved: int, n: int) -> list[str]:
    """The assistant turns of rollout i: tool calls of different lengths, then the outcome line."""
    return [f"call tool {'x' * (2 * t + i)}" for t in range(n - 1)] + [f"done score={score} solved={solved}"]


def _trainer(overrides: list[str]) -> PlanshapeTrainer:
    trainer = get_trainer_cls(verl_config(overrides).trainer.v1.trainer_mode)(config=verl_config(overrides))
    trainer._init_resource_pool_mgr()
    return trainer


def _score(manager, tokenizer, prompt: list[int], ids: list[int]) -> dict:
    return manager.loop.run_until_complete(manager.run_single(reward_row(tokenizer, prompt, ids, {
        "data_source": "webshop-like", "reward_model": {"style": "rule", "ground_truth": ""}, "extra_info": {}})))


def _output(prompt: list[int], ids: list[int], mask: list[int], scored: dict) -> AgentLoopOutput:
    return AgentLoopOutput(prompt_ids=prompt, response_ids=ids, response_mask=mask, num_turns=2,
                           reward_score=scored["reward_score"], metrics={},
                           extra_fields={"reward_extra_info": dict(scored["reward_extra_info"]),
                                         "min_global_steps": STEP - 1, "max_global_steps": STEP - 1})


def _put(tq, rows: list[tuple[str, str, AgentLoopOutput]]):
    """(key, uid, output) rows into TransferQueue as V1's agent loop puts them."""
    fields, tags = [], []
    for _, uid, out in rows:
        field = out.as_dict()
        field.update({"uid": uid, "global_steps": STEP})
        fields.append(field)
        tags.append({"status": "success", "global_steps": STEP, "min_global_steps": STEP - 1,
                     "max_global_steps": STEP - 1})
    return tq.kv_batch_put(keys=[k for k, _, _ in rows], partition_id="train",
                           fields=list_of_dict_to_tensordict(fields), tags=tags)


def _trajectory_rows(manager, tokenizer, prompt):
    """One row per trajectory: assistant turns as runs of the response mask, tool responses between them."""
    rows, masks = [], []
    for i, (score, solved, n) in enumerate(ROLLOUTS):
        turns: list[tuple[str, str]] = []
        for t, text in enumerate(_turns(i, score, solved, n)):
            turns += [("assistant", text)] + ([("tool", f"result {t}")] if t < n - 1 else [])
        ids, mask = response_ids(tokenizer, turns)
        scored = _score(manager, tokenizer, prompt, ids)
        rows.append((f"{UIDS[i]}-s{STEP}_{i}_0", f"{UIDS[i]}-s{STEP}", _output(prompt, ids, mask, scored)))
        masks.append(mask)
    return rows, masks


def _session_rows(manager, tokenizer, prompt):
    """V1 multi-output: one row per turn keyed {uid}_{session}_{output}; the final output is scored and its
    reward and extra info copied to the session's other outputs (``AgentLoopWorkerTQ._agent_loop_postprocess``)."""
    rows, where = [], []
    for i, (score, solved, n) in enumerate(ROLLOUTS):
        parts = [response_ids(tokenizer, [("assistant", text)]) for text in _turns(i, score, solved, n)]
        scored = _score(manager, tokenizer, prompt, parts[-1][0])
        for k, (ids, mask) in enumerate(parts):
            rows.append((f"{UIDS[i]}-s{STEP}_{i}_{k}", f"{UIDS[i]}-s{STEP}", _output(prompt, ids, mask, scored)))
            where.append((i, k))
    order = np.random.default_rng(0).permutation(len(rows)).tolist()  # _balance_batch reorders rows
    return [rows[j] for j in order], [where[j] for j in order]


def _advantages(tq, batch) -> list[torch.Tensor]:
    got = tq.kv_batch_get(keys=batch.keys, partition_id=batch.partition_id, select_fields=["advantages"])
    return list(got["advantages"].unbind())


def _reference(turn_lengths: list[list[int]]) -> list[list[float]]:
    scores, solved = [r[0] for r in ROLLOUTS], [bool(r[1]) for r in ROLLOUTS]
    expected = planpo_reference(UIDS, scores, solved, turn_lengths, alpha=0.09)
    from_score = planpo_reference(UIDS, scores, [s == 10 for s in scores], turn_lengths, alpha=0.09)
    assert expected != from_score  # the flag, not the score, decides these advantages
    return expected


@pytest.fixture()
def step():
    before = SkipManager.step
    SkipManager.set_step(STEP)
    yield
    SkipManager.set_step(before)


@pytest.fixture()
def prompt(tokenizer) -> list[int]:
    return tokenizer.encode("<|im_start|>user\nbuy it<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)


def test_flags_reach_planpo_one_row_per_trajectory(transfer_queue, tokenizer, prompt, step):
    trainer = _trainer([*PLANSHAPE, *FLAG])
    manager = load_reward_manager(trainer.config, tokenizer)
    rows, masks = _trajectory_rows(manager, tokenizer, prompt)
    assert [r[2].extra_fields["reward_extra_info"]["acc"] for r in rows] == [r[1] for r in ROLLOUTS]
    # VERL pads the batch to a multiple of the data-parallel size with no-op rows that copy the first row's
    # extra info (acc=1), in a group of their own: they must count as failures, and change nothing else
    batch = upsample_batch_to_divisible_size(_put(transfer_queue, rows), 5, tokenizer.eos_token_id)
    assert [t.get("is_padding", False) for t in batch.tags] == [False] * 8 + [True] * 2
    try:
        metrics: dict = {}
        trainer._compute_advantage(batch, metrics)
        got = _advantages(transfer_queue, batch)
    finally:
        transfer_queue.kv_clear(keys=batch.keys, partition_id=batch.partition_id)
    lengths = [[end - start for start, end in runs(mask)] for mask in masks]
    expected = token_reference(masks, _reference(lengths))
    for row, want in zip(got[:8], expected, strict=True):
        torch.testing.assert_close(row, torch.tensor(want, dtype=row.dtype), rtol=1e-5, atol=1e-6)
    assert all(torch.all(row == 0) for row in got[8:])
    # the flags' over the 8 real rows (the score's: 2 / 8); the padding rows are no samples of any statistic
    assert metrics["planshape/success_rate"] == pytest.approx(4 / 8)


def test_flags_reach_planpo_one_row_per_turn(transfer_queue, tokenizer, prompt, step):
    trainer = _trainer([*PLANSHAPE, *FLAG])
    manager = load_reward_manager(trainer.config, tokenizer)
    rows, where = _session_rows(manager, tokenizer, prompt)
    batch = _put(transfer_queue, rows)
    try:
        trainer._compute_advantage(batch, {})
        got = _advantages(transfer_queue, batch)
    finally:
        transfer_queue.kv_clear(keys=batch.keys, partition_id=batch.partition_id)
    lengths: list[list[int]] = [[0] * n for _, _, n in ROLLOUTS]
    for (_, _, out), (i, k) in zip(rows, where, strict=True):
        lengths[i][k] = sum(out.response_mask)
    expected = _reference(lengths)
    for row, (i, k) in zip(got, where, strict=True):
        torch.testing.assert_close(row, torch.full_like(row, expected[i][k]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("flag", "match"), [("solved", "row '.*' has no 'solved' in its reward_extra_info"),
                                             ("score", "row '.*' has score=8.0 in its reward_extra_info; a success "
                                                       "flag is 0/1")])
def test_a_missing_or_non_binary_flag_names_the_field(transfer_queue, tokenizer, prompt, step, flag, match):
    trainer = _trainer([*PLANSHAPE, "+algorithm.planpo.success.by=flag", f"+algorithm.planpo.success.flag={flag}"])
    rows, _ = _trajectory_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt)
    with queued(transfer_queue, _put(transfer_queue, rows)) as batch, \
            pytest.raises(ValueError, match=f"success.flag={flag!r}: {match}"):
        trainer._compute_advantage(batch, {})


def test_without_the_planshape_trainer_by_flag_is_refused(transfer_queue, tokenizer, prompt, step):
    sync = ["trainer.v1.trainer_mode=sync", *ESTIMATOR_ONLY, *FLAG]
    refusal = "success.by=flag (flag 'acc') needs trainer.use_v1=true trainer.v1.trainer_mode=planshape"
    assert any(refusal in e for e in check_launch(sync).errors)
    assert not any(refusal in e for e in check_launch([*PLANSHAPE, *FLAG]).errors)  # (data files not checked here)
    trainer = get_trainer_cls("sync")(config=verl_config(sync))  # VERL's own sync trainer
    rows, _ = _trajectory_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt)
    with queued(transfer_queue, _put(transfer_queue, rows)) as batch, \
            pytest.raises(ConfigError, match="select it, or use .*success.by=threshold"):
        trainer._compute_advantage(batch, {})
