"""Estimator-only PlanPO in VERL: an ALFWorld-style reward (10 on success, else 0) that is not planshape's, no
TravelPlanner files, through VERL's own dispatch (legacy ``compute_advantage`` and V1
``compute_advantage_for_multi_trajectories``), equal token for token to the paper's equations in plain loops;
and V1 multi-output sessions (one row per turn) equal to the same trajectories one row each."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl("v1")

import numpy as np
import torch
from omegaconf import OmegaConf
from planshape.adapters.verl.config import run_shaper
from planshape.shaping.facade import ConfigError
from verl import DataProto
from verl.trainer.ppo.ray_trainer import compute_advantage
from verl.trainer.ppo.v1 import trainer_base
from verl.utils.skip.skip_manager import SkipManager

from ...paper_reference import planpo_reference, runs, token_reference
from .helpers import multi_output_rows

L = 20
BLOCK = {"total_steps": 150, "success": {"by": "threshold", "threshold": 10}}  # the paper: success iff R = 10
UIDS = ["a"] * 4 + ["b"] * 4
SCORES = [10.0, 10.0, 0.0, 10.0, 0.0, 10.0, 10.0, 0.0]
TURNS = [[3, 2, 4], [2, 5], [4], [1, 1, 1, 1], [6, 2], [2, 2, 2], [3], [2, 2, 2, 2, 2]]


def _row(lengths: list[int], gap: int = 1) -> list[int]:
    row: list[int] = []
    for n in lengths:
        row += [1] * n + [0] * gap
    return row + [0] * (L - len(row))


def _data(masks: list[list[int]], scores: list[float], uids: list[str]) -> DataProto:
    mask = torch.tensor(masks, dtype=torch.int64)
    rewards = torch.zeros(mask.shape, dtype=torch.float32)
    last = mask.shape[1] - 1 - torch.flip(mask, [1]).argmax(1)
    rewards[torch.arange(len(masks)), last] = torch.tensor(scores)  # VERL: the score on the last response token
    return DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                               non_tensors={"uid": np.array(uids, dtype=object)})


def _algorithm(**block) -> OmegaConf:
    return OmegaConf.create({"adv_estimator": "planpo", "gamma": 1.0, "lam": 1.0, "planpo": {**BLOCK, **block}})


@pytest.fixture(autouse=True)
def _step():
    before = SkipManager.step
    SkipManager.set_step(31)  # 30 completed steps: alpha = 0.1 - 0.05 * 30 / 150 = 0.09
    yield
    SkipManager.set_step(before)


def _reference() -> torch.Tensor:
    per_turn = planpo_reference(UIDS, SCORES, [s == 10 for s in SCORES], TURNS, alpha=0.09)
    return torch.tensor(token_reference([_row(t) for t in TURNS], per_turn), dtype=torch.float32)


@pytest.mark.parametrize("path", ["legacy", "v1"])
def test_estimator_only_equals_the_paper_token_for_token(path):
    order = [5, 2, 7, 0, 3, 6, 1, 4]  # rows reordered as _balance_batch does
    data = _data([_row(TURNS[i]) for i in order], [SCORES[i] for i in order], [UIDS[i] for i in order])
    if path == "legacy":
        out = compute_advantage(data, adv_estimator="planpo", config=_algorithm())
    else:
        keys = [f"{UIDS[i]}_{i}_0" for i in order]  # one output per session
        out = trainer_base.compute_advantage_for_multi_trajectories(data, batch_keys=keys, adv_estimator="planpo",
                                                                    num_repeat=4, config=_algorithm())
    got = torch.empty_like(out.batch["advantages"])
    got[torch.tensor(order)] = out.batch["advantages"]
    torch.testing.assert_close(got, _reference(), rtol=1e-5, atol=1e-6)
    assert run_shaper(_algorithm().planpo).estimator_only


def test_multi_output_sessions_equal_one_row_per_trajectory():
    """V1 multi-output: each turn its own row, keyed {uid}_{session}_{output}; the score on the final output."""
    masks, scores, uids, keys, where = multi_output_rows(TURNS, SCORES, UIDS, _row)
    order = np.random.default_rng(0).permutation(len(masks)).tolist()  # _balance_batch shuffles outputs too
    data = _data([masks[j] for j in order], [scores[j] for j in order], [uids[j] for j in order])
    out = trainer_base.compute_advantage_for_multi_trajectories(data, batch_keys=[keys[j] for j in order],
                                                                adv_estimator="planpo", num_repeat=4,
                                                                config=_algorithm())
    reference = _reference()
    for row, j in enumerate(order):
        i, k = where[j]
        start, end = runs(_row(TURNS[i]))[k]
        value = reference[i, start]
        torch.testing.assert_close(out.batch["advantages"][row, :end - start], torch.full((end - start,), value))
        assert torch.all(out.batch["advantages"][row, end - start:] == 0)


def test_grpo_dispatch_untouched_by_the_wrapper():
    data = _data([_row(t) for t in TURNS], SCORES, UIDS)
    keys = [f"{u}_{i}_0" for i, u in enumerate(UIDS)]
    out = trainer_base.compute_advantage_for_multi_trajectories(data, batch_keys=keys, adv_estimator="grpo",
                                                                num_repeat=4, config=_algorithm())
    a = np.array(SCORES[:4])
    expected = (a - a.mean()) / (a.std(ddof=1) + 1e-6)
    first = out.batch["advantages"][:4, 0]
    np.testing.assert_allclose(first.numpy(), expected, rtol=1e-5)


def test_estimator_only_config_mistakes_fail_at_start_up():
    data = _data([_row(t) for t in TURNS], SCORES, UIDS)
    with pytest.raises(ConfigError, match="no TravelPlanner final pass"):
        compute_advantage(data, adv_estimator="planpo", config=_algorithm(success={"by": "pass"}))
    with pytest.raises(ConfigError, match="success.by=flag .* needs .*trainer.v1.trainer_mode=planshape"):
        compute_advantage(data, adv_estimator="planpo", config=_algorithm(success={"by": "flag", "flag": "acc"}))
    with pytest.raises(ConfigError, match="schedule: set without a database"):
        compute_advantage(data, adv_estimator="planpo", config=_algorithm(schedule="stage2"))
