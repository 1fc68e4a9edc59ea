"""GiGPO and RLOO in VERL, through VERL's own dispatch, equal token for token to plain loops of their equations
(``tests/paper_reference.py``): RLOO through the legacy ``compute_advantage`` and V1's
``compute_advantage_for_multi_trajectories`` in both batch layouts (and equal to VERL's own ``rloo`` on one row
per trajectory); GiGPO through the planshape V1 trainer's real advantage step, which hands the estimator each
row's anchor states, from the agent loop's ``extra_fields`` (``anchor.by=state``) or from the tool calls in the
responses (``anchor.by=tool_calls``), in both layouts. Rows go through ``AgentLoopOutput.as_dict``, TransferQueue
and VERL's padding, as in test_trainer_success_flag.py; the reward is not planshape's."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import numpy as np
import torch
from omegaconf import OmegaConf
from planshape.adapters.verl.check import check_launch
from planshape.shaping.facade import ConfigError
from verl.experimental.agent_loop.agent_loop import AgentLoopOutput
from verl.trainer.ppo.padding_utils import upsample_batch_to_divisible_size
from verl.trainer.ppo.ray_trainer import compute_advantage
from verl.trainer.ppo.reward import load_reward_manager
from verl.trainer.ppo.v1 import trainer_base

from ...paper_reference import gigpo_reference, rloo_reference, runs, token_reference
from .helpers import multi_output_rows, response_ids, tool_call
from .test_trainer_success_flag import ESTIMATOR_ONLY, STEP, _advantages, _put, _score, _trainer, prompt, step

__all__ = ["prompt", "step"]  # fixtures of test_trainer_success_flag.py, used here

GIGPO = ["trainer.v1.trainer_mode=planshape", *ESTIMATOR_ONLY, "+algorithm.planpo.estimator=gigpo",
         "+algorithm.planpo.estimator_options.gamma=0.9"]
UIDS = ["a"] * 4 + ["b"] * 4
# (score, the state each assistant turn is taken in); the final turn states the outcome for task_reward.py
ROLLOUTS = [(8.0, ["s0", "s1", "s2"]), (10.0, ["s0", "s2"]), (6.0, ["s0"]), (0.0, ["s0", "s1", "s1", "s2"]),
            (9.0, ["s0", "s3"]), (9.5, ["s0", "s3", "s1"]), (10.0, ["s0"]), (2.0, ["s0", "s1", "s3", "s1"])]
# (item, city) of each tool call: equal calls (argument order aside) reach the same TravelPlanner state
CALLS = [[("flights", "Austin"), ("hotels", "Austin")], [("flights", "Austin")], [],
         [("hotels", "Austin"), ("flights", "Austin"), ("flights", "Dallas")], [("flights", "Dallas")],
         [("flights", "Dallas"), ("hotels", "Dallas")], [], [("flights", "Dallas"), ("hotels", "Austin")]]


def _turns(i: int, by: str) -> list[str]:
    score = ROLLOUTS[i][0]
    if by == "state":
        n = len(ROLLOUTS[i][1])
        calls = [f"call tool {'x' * (2 * t + i)}" for t in range(n - 1)]
    else:  # the arguments written in a different order by every other trajectory
        arguments = [{"city": city, "when": "day 1"} if i % 2 else {"when": "day 1", "city": city}
                     for _, city in CALLS[i]]
        calls = [tool_call(f"search_{item}", a) for (item, _), a in zip(CALLS[i], arguments, strict=True)]
    return [*calls, f"done score={score} solved=0"]


def _states(by: str) -> list[list]:
    """What the test expects the estimator to group by: the given ids, or the calls made so far."""
    if by == "state":
        return [states for _, states in ROLLOUTS]
    return [[tuple(CALLS[i][:t]) for t in range(len(CALLS[i]) + 1)] for i in range(len(CALLS))]


def _output(prompt_ids, ids, mask, scored, anchors) -> AgentLoopOutput:
    return AgentLoopOutput(prompt_ids=prompt_ids, response_ids=ids, response_mask=mask, num_turns=2,
                           reward_score=scored["reward_score"], metrics={},
                           extra_fields={"reward_extra_info": dict(scored["reward_extra_info"]), "anchors": anchors,
                                         "min_global_steps": STEP - 1, "max_global_steps": STEP - 1})


def _trajectory_rows(manager, tokenizer, prompt_ids, by):
    rows, masks = [], []
    for i in range(len(ROLLOUTS)):
        texts = _turns(i, by)
        turns: list[tuple[str, str]] = []
        for t, text in enumerate(texts):
            turns += [("assistant", text)] + ([("tool", f"result {t}")] if t < len(texts) - 1 else [])
        ids, mask = response_ids(tokenizer, turns)
        scored = _score(manager, tokenizer, prompt_ids, ids)
        rows.append((f"{UIDS[i]}-s{STEP}_{i}_0", f"{UIDS[i]}-s{STEP}",
                     _output(prompt_ids, ids, mask, scored, ROLLOUTS[i][1])))
        masks.append(mask)
    return rows, masks


def _session_rows(manager, tokenizer, prompt_ids, by):
    rows, where = [], []
    for i in range(len(ROLLOUTS)):
        parts = [response_ids(tokenizer, [("assistant", text)]) for text in _turns(i, by)]
        scored = _score(manager, tokenizer, prompt_ids, parts[-1][0])
        for k, (ids, mask) in enumerate(parts):
            rows.append((f"{UIDS[i]}-s{STEP}_{i}_{k}", f"{UIDS[i]}-s{STEP}",
                         _output(prompt_ids, ids, mask, scored, [ROLLOUTS[i][1][k]] if by == "state" else [])))
            where.append((i, k))
    order = np.random.default_rng(0).permutation(len(rows)).tolist()  # _balance_batch reorders rows
    return [rows[j] for j in order], [where[j] for j in order]


def _run(transfer_queue, trainer, rows, pad: int = 0) -> tuple[list[torch.Tensor], dict]:
    batch = _put(transfer_queue, rows)
    if pad:
        batch = upsample_batch_to_divisible_size(batch, pad, trainer.tokenizer.eos_token_id)
    try:
        metrics: dict = {}
        trainer._compute_advantage(batch, metrics)
        return _advantages(transfer_queue, batch), metrics
    finally:
        transfer_queue.kv_clear(keys=batch.keys, partition_id=batch.partition_id)


@pytest.mark.parametrize("by", ["state", "tool_calls"])
def test_gigpo_one_row_per_trajectory(transfer_queue, tokenizer, prompt, step, by):
    trainer = _trainer([*GIGPO, f"+algorithm.planpo.anchor.by={by}"])
    trainer.tokenizer = tokenizer
    rows, masks = _trajectory_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt, by)
    got, metrics = _run(transfer_queue, trainer, rows, pad=5)  # + 2 padding rows: no turn, no state
    lengths = [[end - start for start, end in runs(mask)] for mask in masks]
    scores = [r[0] for r in ROLLOUTS]
    expected = token_reference(masks, gigpo_reference(UIDS, scores, lengths, _states(by), gamma=0.9))
    for row, want in zip(got[:8], expected, strict=True):
        torch.testing.assert_close(row, torch.tensor(want, dtype=row.dtype), rtol=1e-5, atol=1e-6)
    assert all(torch.all(row == 0) for row in got[8:])
    assert metrics["planshape/alpha"] == 1.0 and metrics["planshape/adv_s_std"] > 0


@pytest.mark.parametrize("by", ["state", "tool_calls"])
def test_gigpo_one_row_per_turn(transfer_queue, tokenizer, prompt, step, by):
    trainer = _trainer([*GIGPO, f"+algorithm.planpo.anchor.by={by}"])
    trainer.tokenizer = tokenizer
    rows, where = _session_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt, by)
    got, _ = _run(transfer_queue, trainer, rows)
    lengths: list[list[int]] = [[0] * len(_turns(i, by)) for i in range(len(ROLLOUTS))]
    for (_, _, out), (i, k) in zip(rows, where, strict=True):
        lengths[i][k] = sum(out.response_mask)
    expected = gigpo_reference(UIDS, [r[0] for r in ROLLOUTS], lengths, _states(by), gamma=0.9)
    for row, (i, k) in zip(got, where, strict=True):
        torch.testing.assert_close(row, torch.full_like(row, expected[i][k]), rtol=1e-5, atol=1e-6)


def test_gigpo_without_anchor_states_is_refused(transfer_queue, tokenizer, prompt, step):
    trainer = _trainer(GIGPO)
    rows, _ = _trajectory_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt, "state")
    for _, _, out in rows[:1]:
        del out.extra_fields["anchors"]
    with pytest.raises(ValueError, match="anchor.by=state: row '.*' has no list 'anchors' in its extra_fields"):
        _run(transfer_queue, trainer, rows)
    sync = ["trainer.v1.trainer_mode=sync", *GIGPO[1:]]
    refusal = "estimator 'gigpo' groups turns by anchor state, which VERL 0.9 hands no estimator"
    assert any(refusal in e for e in check_launch(sync).errors)
    assert not any(refusal in e for e in check_launch(GIGPO).errors)
    with pytest.raises(ConfigError, match=refusal):
        compute_advantage(_legacy_data(), adv_estimator="planpo", config=_algorithm("gigpo"))


L = 20
SCORES = [10.0, 10.0, 0.0, 10.0, 0.0, 10.0, 4.0, 0.0]
TURNS = [[3, 2, 4], [2, 5], [4], [1, 1, 1, 1], [6, 2], [2, 2, 2], [3], [2, 2, 2, 2, 2]]


def _row(lengths: list[int]) -> list[int]:
    row: list[int] = []
    for n in lengths:
        row += [1] * n + [0]
    return row + [0] * (L - len(row))


def _legacy_data(masks=None, scores=None, uids=None):
    from verl import DataProto

    mask = torch.tensor(masks or [_row(t) for t in TURNS], dtype=torch.int64)
    rewards = torch.zeros(mask.shape, dtype=torch.float32)
    last = mask.shape[1] - 1 - torch.flip(mask, [1]).argmax(1)
    rewards[torch.arange(len(mask)), last] = torch.tensor(scores or SCORES)
    return DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                               non_tensors={"uid": np.array(uids or UIDS, dtype=object)})


def _algorithm(estimator: str) -> OmegaConf:
    return OmegaConf.create({"adv_estimator": "planpo", "gamma": 1.0, "lam": 1.0,
                             "planpo": {"estimator": estimator, "total_steps": 150}})


@pytest.mark.parametrize("path", ["legacy", "v1"])
def test_rloo_equals_its_equation_and_verls_own_rloo(path):
    order = [5, 2, 7, 0, 3, 6, 1, 4]  # rows reordered as _balance_batch does
    data = _legacy_data([_row(TURNS[i]) for i in order], [SCORES[i] for i in order], [UIDS[i] for i in order])
    if path == "legacy":
        out = compute_advantage(data, adv_estimator="planpo", config=_algorithm("rloo"))
    else:
        keys = [f"{UIDS[i]}_{i}_0" for i in order]
        out = trainer_base.compute_advantage_for_multi_trajectories(data, batch_keys=keys, adv_estimator="planpo",
                                                                    num_repeat=4, config=_algorithm("rloo"))
    got = torch.empty_like(out.batch["advantages"])
    got[torch.tensor(order)] = out.batch["advantages"]
    want = token_reference([_row(t) for t in TURNS], rloo_reference(UIDS, SCORES, TURNS))
    torch.testing.assert_close(got, torch.tensor(want, dtype=torch.float32))
    verl_own = compute_advantage(_legacy_data(), adv_estimator="rloo", config=OmegaConf.create({"gamma": 1.0}))
    torch.testing.assert_close(got, verl_own.batch["advantages"])


def test_rloo_counts_a_multi_output_session_once():
    masks, scores, uids, keys, where = multi_output_rows(TURNS, SCORES, UIDS, _row)
    order = np.random.default_rng(1).permutation(len(masks)).tolist()
    data = _legacy_data([masks[j] for j in order], [scores[j] for j in order], [uids[j] for j in order])
    out = trainer_base.compute_advantage_for_multi_trajectories(data, batch_keys=[keys[j] for j in order],
                                                                adv_estimator="planpo", num_repeat=4,
                                                                config=_algorithm("rloo"))
    want = rloo_reference(UIDS, SCORES, TURNS)
    for row, j in enumerate(order):
        i, k = where[j]
        n = TURNS[i][k]
        torch.testing.assert_close(out.batch["advantages"][row, :n], torch.full((n,), want[i][k]))
        assert torch.all(out.batch["advantages"][row, n:] == 0)
