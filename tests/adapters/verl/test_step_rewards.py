"""Per-turn rewards in VERL, through VERL's own dispatch, equal token for token to plain loops of the estimators'
equations (``tests/paper_reference.py``):

* one row per turn through V1's ``compute_advantage_for_multi_trajectories``: each output row's own score is its
  turn's reward (a multi-output agent loop's, where VERL leaves each output's score as the loop wrote it), GRPO,
  RLOO and PlanPO with ``reward=sum``; an outcome-only configuration refuses them, naming VERL's override;
* through the planshape V1 trainer's real advantage step (``AgentLoopOutput.as_dict``, TransferQueue, VERL's
  padding), in both layouts: the per-turn rewards an agent loop keeps in each row's ``extra_fields``
  (``step_rewards.field``), GiGPO over them with the loop's anchor states, and GRPO with ``reward=sum``; in V1's
  multi-output sessions VERL copies the final output's score onto the others, which is read as one outcome;
* ``step_rewards.field`` without the planshape trainer: refused by the estimator and by ``planshape verl check``.
"""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl("planshape_trainer")

import numpy as np
import torch
from omegaconf import OmegaConf
from planshape.adapters.verl.check import check_launch
from planshape.shaping.facade import ConfigError, StepRewardsIgnored
from verl.trainer.ppo.ray_trainer import compute_advantage
from verl.trainer.ppo.reward import load_reward_manager
from verl.trainer.ppo.v1 import trainer_base

from ...paper_reference import gigpo_reference, grpo_reference, planpo_reference, rloo_reference, token_reference
from .helpers import response_ids
from .test_estimators import ROLLOUTS as STATE_ROLLOUTS
from .test_estimators import _legacy_data, _output, _row, _run, _turns
from .test_trainer_success_flag import ESTIMATOR_ONLY, STEP, _score, _trainer, prompt, step

__all__ = ["prompt", "step"]  # fixtures of test_trainer_success_flag.py, used here

UIDS = ["a"] * 4 + ["b"] * 4
SCORES = [10.0, 10.0, 0.0, 10.0, 0.0, 10.0, 4.0, 0.0]
TURNS = [[3, 2, 4], [2, 5], [4], [1, 1, 1, 1], [6, 2], [2, 2, 2], [3], [2, 2, 2, 2, 2]]
# each turn's reward besides the outcome: step penalties and bonuses (the final turn's own is 0 where it rides on a
# row of its own, so that its row's score is the outcome alone)
STEPS = [[-0.1, 0.5, 0.0], [-0.1, 0.0], [0.0], [-0.1, -0.1, 1.0, 0.0], [0.5, 0.0], [-0.1, -0.1, 0.0], [0.0],
         [-0.1, -0.1, -0.1, -0.1, 0.0]]
SUM = {"grpo": lambda: grpo_reference(UIDS, SCORES, TURNS, step_rewards=STEPS, reward="sum"),
       "rloo": lambda: rloo_reference(UIDS, SCORES, TURNS, STEPS, "sum"),
       "planpo": lambda: planpo_reference(UIDS, SCORES, [s == 10 for s in SCORES], TURNS, 0.09, step_rewards=STEPS,
                                          reward="sum")}


def _algorithm(estimator: str, **block) -> OmegaConf:
    planpo = {"estimator": estimator, "total_steps": 150, "success": {"by": "threshold", "threshold": 10}, **block}
    return OmegaConf.create({"adv_estimator": "planpo", "gamma": 1.0, "lam": 1.0, "planpo": planpo})


def _output_rows():
    """One row per turn, shuffled as ``_balance_batch`` does: a non-final row's score is its turn's reward."""
    masks, scores, uids, keys, where = [], [], [], [], []
    for i, lengths in enumerate(TURNS):
        for k, n in enumerate(lengths):
            masks.append(_row([n]))
            scores.append(SCORES[i] if k == len(lengths) - 1 else STEPS[i][k])
            uids.append(UIDS[i])
            keys.append(f"{UIDS[i]}_{i}_{k}")
            where.append((i, k))
    order = np.random.default_rng(3).permutation(len(masks)).tolist()
    data = _legacy_data([masks[j] for j in order], [scores[j] for j in order], [uids[j] for j in order])
    return data, [keys[j] for j in order], [where[j] for j in order]


@pytest.mark.parametrize("estimator", list(SUM))
def test_multi_output_rows_scores_are_per_turn_rewards(estimator, step):
    data, keys, where = _output_rows()
    out = trainer_base.compute_advantage_for_multi_trajectories(
        data, batch_keys=keys, adv_estimator="planpo", num_repeat=4,
        config=_algorithm(estimator, estimator_options={"reward": "sum"}))
    want = SUM[estimator]()
    for row, (i, k) in enumerate(where):
        n = TURNS[i][k]
        torch.testing.assert_close(out.batch["advantages"][row, :n], torch.full((n,), want[i][k]), rtol=1e-5,
                                   atol=1e-6)
        assert torch.all(out.batch["advantages"][row, n:] == 0)


def test_an_outcome_estimator_refuses_them_naming_verls_override(step):
    data, keys, _ = _output_rows()
    with pytest.raises(StepRewardsIgnored, match=r"\+algorithm\.planpo\.estimator_options\.reward=sum"):
        trainer_base.compute_advantage_for_multi_trajectories(data, batch_keys=keys, adv_estimator="planpo",
                                                              num_repeat=4, config=_algorithm("rloo"))


def test_per_turn_rewards_from_extra_fields_need_the_planshape_trainer(step):
    with pytest.raises(ConfigError, match=r"step_rewards.field='turn_rewards': .* trainer.v1.trainer_mode=planshape"):
        compute_advantage(_legacy_data(), adv_estimator="planpo",
                          config=_algorithm("rloo", step_rewards={"field": "turn_rewards"},
                                            estimator_options={"reward": "sum"}))
    launch = [*ESTIMATOR_ONLY, "+algorithm.planpo.estimator=gigpo", "+algorithm.planpo.step_rewards.field=turn_rewards"]
    errors = check_launch(["trainer.v1.trainer_mode=sync", *launch]).errors
    assert any("step_rewards.field='turn_rewards'" in e for e in errors)
    assert not any("step_rewards.field" in e for e in check_launch(["trainer.v1.trainer_mode=planshape",
                                                                     *launch]).errors)
    outcome = check_launch(["trainer.v1.trainer_mode=planshape", *ESTIMATOR_ONLY, "+algorithm.planpo.estimator=grpo",
                            "+algorithm.planpo.step_rewards.field=turn_rewards"]).errors
    assert any("+algorithm.planpo.estimator_options.reward=sum" in e for e in outcome)  # refused at start-up


# The planshape trainer's advantage step: rows as VERL's agent loop puts them, with per-turn rewards beside them
PER_TURN = [[-0.1, 0.5, 0.0], [-0.1, 0.0], [0.0], [-0.1, -0.1, 1.0, 0.0], [0.5, 0.25], [-0.1, -0.1, 0.0], [1.0],
            [-0.1, -0.1, -0.1, 0.0]]  # one per assistant turn of STATE_ROLLOUTS (its final turns' too)
TRAINER = ["trainer.v1.trainer_mode=planshape", *ESTIMATOR_ONLY, "+algorithm.planpo.step_rewards.field=turn_rewards"]
CONFIGS = {
    "gigpo": (["+algorithm.planpo.estimator=gigpo", "+algorithm.planpo.estimator_options.gamma=0.9",
               "+algorithm.planpo.anchor.by=state"],
              lambda lengths: gigpo_reference(UIDS, [r[0] for r in STATE_ROLLOUTS], lengths,
                                              [s for _, s in STATE_ROLLOUTS], gamma=0.9, step_rewards=PER_TURN)),
    "gigpo-verl-agent": (["+algorithm.planpo.estimator=gigpo", "+algorithm.planpo.estimator_options.norm=none",
                          "+algorithm.planpo.estimator_options.episode_stats=turns",
                          "+algorithm.planpo.anchor.by=state"],
                         lambda lengths: gigpo_reference(UIDS, [r[0] for r in STATE_ROLLOUTS], lengths,
                                                         [s for _, s in STATE_ROLLOUTS], use_std=False,
                                                         step_rewards=PER_TURN, episode_stats="turns")),
    "gigpo-similar": (["+algorithm.planpo.estimator=gigpo", "+algorithm.planpo.anchor.by=state",
                       "+algorithm.planpo.anchor.similarity=0.5"],  # "s0" and "s1": ratio 0.5, one step group
                      lambda lengths: gigpo_reference(UIDS, [r[0] for r in STATE_ROLLOUTS], lengths,
                                                      [s for _, s in STATE_ROLLOUTS], step_rewards=PER_TURN,
                                                      similarity=0.5)),
    "grpo-sum": (["+algorithm.planpo.estimator=grpo", "+algorithm.planpo.estimator_options.reward=sum"],
                 lambda lengths: grpo_reference(UIDS, [r[0] for r in STATE_ROLLOUTS], lengths, step_rewards=PER_TURN,
                                                reward="sum")),
    "rloo-sum": (["+algorithm.planpo.estimator=rloo", "+algorithm.planpo.estimator_options.reward=sum"],
                 lambda lengths: rloo_reference(UIDS, [r[0] for r in STATE_ROLLOUTS], lengths, PER_TURN, "sum")),
    "planpo-sum": (["+algorithm.planpo.estimator_options.reward=sum", "+algorithm.planpo.success.by=threshold",
                    "+algorithm.planpo.success.threshold=10"],  # α(30) = 0.1 - 0.05 * 30 / 150 = 0.09
                   lambda lengths: planpo_reference(UIDS, [r[0] for r in STATE_ROLLOUTS],
                                                    [r[0] == 10 for r in STATE_ROLLOUTS], lengths, 0.09,
                                                    step_rewards=PER_TURN, reward="sum")),
}


def _trajectory_rows(manager, tokenizer, prompt_ids):
    rows, masks = [], []
    for i in range(len(STATE_ROLLOUTS)):
        texts = _turns(i, "state")
        turns: list[tuple[str, str]] = []
        for t, text in enumerate(texts):
            turns += [("assistant", text)] + ([("tool", f"result {t}")] if t < len(texts) - 1 else [])
        ids, mask = response_ids(tokenizer, turns)
        out = _output(prompt_ids, ids, mask, _score(manager, tokenizer, prompt_ids, ids), STATE_ROLLOUTS[i][1])
        out.extra_fields["turn_rewards"] = PER_TURN[i]
        rows.append((f"{UIDS[i]}-s{STEP}_{i}_0", f"{UIDS[i]}-s{STEP}", out))
        masks.append(mask)
    return rows, masks


def _session_rows(manager, tokenizer, prompt_ids):
    """V1 multi-output sessions, as ``AgentLoopWorkerTQ`` puts them: the final output's score copied onto the
    others (read as one outcome), each output's own per-turn reward in its ``extra_fields``."""
    rows, where = [], []
    for i in range(len(STATE_ROLLOUTS)):
        parts = [response_ids(tokenizer, [("assistant", text)]) for text in _turns(i, "state")]
        scored = _score(manager, tokenizer, prompt_ids, parts[-1][0])
        for k, (ids, mask) in enumerate(parts):
            out = _output(prompt_ids, ids, mask, scored, [STATE_ROLLOUTS[i][1][k]])
            out.extra_fields["turn_rewards"] = [PER_TURN[i][k]]
            rows.append((f"{UIDS[i]}-s{STEP}_{i}_{k}", f"{UIDS[i]}-s{STEP}", out))
            where.append((i, k))
    order = np.random.default_rng(0).permutation(len(rows)).tolist()
    return [rows[j] for j in order], [where[j] for j in order]


@pytest.mark.parametrize("name", list(CONFIGS))
def test_planshape_trainer_one_row_per_trajectory(transfer_queue, tokenizer, prompt, step, name):
    overrides, reference = CONFIGS[name]
    trainer = _trainer([*TRAINER, *overrides])
    trainer.tokenizer = tokenizer
    rows, masks = _trajectory_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt)
    got, metrics = _run(transfer_queue, trainer, rows, pad=5)  # + 2 padding rows: no turn, no reward
    lengths = [[end - start for start, end in _runs(mask)] for mask in masks]
    for row, want in zip(got[:8], token_reference(masks, reference(lengths)), strict=True):
        torch.testing.assert_close(row, torch.tensor(want, dtype=row.dtype), rtol=1e-5, atol=1e-6)
    assert all(torch.all(row == 0) for row in got[8:])


@pytest.mark.parametrize("name", list(CONFIGS))
def test_planshape_trainer_one_row_per_turn(transfer_queue, tokenizer, prompt, step, name):
    overrides, reference = CONFIGS[name]
    trainer = _trainer([*TRAINER, *overrides])
    trainer.tokenizer = tokenizer
    rows, where = _session_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt)
    got, _ = _run(transfer_queue, trainer, rows)
    lengths: list[list[int]] = [[0] * len(PER_TURN[i]) for i in range(len(STATE_ROLLOUTS))]
    for (_, _, out), (i, k) in zip(rows, where, strict=True):
        lengths[i][k] = sum(out.response_mask)
    want = reference(lengths)
    for row, (i, k) in zip(got, where, strict=True):
        torch.testing.assert_close(row, torch.full_like(row, want[i][k]), rtol=1e-5, atol=1e-6)


def test_a_row_without_its_per_turn_rewards_is_named(transfer_queue, tokenizer, prompt, step):
    trainer = _trainer([*TRAINER, *CONFIGS["gigpo"][0]])
    trainer.tokenizer = tokenizer
    rows, _ = _trajectory_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt)
    del rows[3][2].extra_fields["turn_rewards"]
    with pytest.raises(ValueError, match=r"step_rewards.field=turn_rewards: row '.*_3_0' has no list 'turn_rewards'"):
        _run(transfer_queue, trainer, rows)


def _runs(mask):
    from ...paper_reference import runs

    return runs(mask)


def test_per_turn_rewards_the_config_does_not_read_are_refused(transfer_queue, tokenizer, prompt, step):
    """Rows carry extra_fields["turn_rewards"], but the config names no step_rewards.field: refused, not ignored."""
    trainer = _trainer(["trainer.v1.trainer_mode=planshape", *ESTIMATOR_ONLY, *CONFIGS["gigpo"][0]])
    trainer.tokenizer = tokenizer
    rows, _ = _trajectory_rows(load_reward_manager(trainer.config, tokenizer), tokenizer, prompt)
    with pytest.raises(ConfigError, match=r"extra_fields carries per-turn rewards \('turn_rewards'\)"):
        _run(transfer_queue, trainer, rows)
