"""The planpo estimator through VERL's own advantage dispatch (legacy and V1), on a multi-turn batch."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl("v1")  # the legacy path on every release: test_contract.py

import numpy as np
import torch
from omegaconf import OmegaConf
from planshape.adapters.verl import advantages as planpo
from planshape.adapters.verl.config import run_shaper
from planshape.shaping.facade import ConfigError
from verl import DataProto
from verl.trainer.ppo.ray_trainer import compute_advantage
from verl.trainer.ppo.v1.utils import compute_advantage_for_multi_trajectories
from verl.utils.skip.skip_manager import SkipManager

BLOCK = {"database": "sample", "schedule": "stage1", "total_steps": 10}
L = 24


def _row(turns: list[int], gaps: list[int]) -> list[int]:
    """An assistant mask: turns of the given lengths separated by tool observations, then padding."""
    row: list[int] = []
    for i, n in enumerate(turns):
        row += [1] * n
        if i < len(gaps):
            row += [0] * gaps[i]
    return row + [0] * (L - len(row))


# Two prompt groups of four; stage-1 max reward is 5, so 5.0 is a success. Turn counts differ per row.
UIDS = ["a", "a", "a", "a", "b", "b", "b", "b"]
SCORES = [5.0, 5.0, 2.0, 0.0, 5.0, 1.5, 5.0, 5.0]
MASKS = [_row([3, 2, 4], [2, 3]), _row([2, 5], [4]), _row([4], []), _row([1, 1, 1, 1], [1, 1, 1]),
         _row([6, 2], [2]), _row([2, 2, 2], [3, 3]), _row([3], []), _row([2, 2, 2, 2, 2], [1, 1, 1, 1])]


def _batch(order: list[int]) -> DataProto:
    mask = torch.tensor([MASKS[i] for i in order], dtype=torch.int64)
    rewards = torch.zeros(len(order), L)
    last = mask.shape[1] - 1 - torch.flip(mask, [1]).argmax(1)  # the reward sits on the last valid response token
    rewards[torch.arange(len(order)), last] = torch.tensor([SCORES[i] for i in order])
    return DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                               non_tensors={"uid": np.array([UIDS[i] for i in order], dtype=object)})


def _algorithm(**block) -> OmegaConf:
    return OmegaConf.create({"adv_estimator": "planpo", "gamma": 1.0, "lam": 1.0, "norm_adv_by_std_in_grpo": True,
                             "planpo": {**BLOCK, **block}})


@pytest.fixture(autouse=True)
def _step():
    before = SkipManager.step
    yield
    SkipManager.set_step(before)


@pytest.mark.parametrize("global_steps", [1, 6])
@pytest.mark.parametrize("path", ["legacy", "v1"])
def test_matches_the_core_token_for_token_with_rows_reordered(path, global_steps):
    SkipManager.set_step(global_steps)
    expected = run_shaper(BLOCK).advantages(np.array(SCORES), torch.tensor(MASKS), UIDS, global_steps - 1)
    order = [5, 2, 7, 0, 3, 6, 1, 4]  # _balance_batch reorders rows: groups are not contiguous
    data = _batch(order)
    with planpo.advantage_step() as step:
        if path == "legacy":
            out = compute_advantage(data, adv_estimator="planpo", config=_algorithm())
        else:
            keys = [f"{UIDS[i]}_{i}_0" for i in order]
            out = compute_advantage_for_multi_trajectories(data, batch_keys=keys, adv_estimator="planpo",
                                                           num_repeat=4, config=_algorithm())
    got = torch.empty_like(out.batch["advantages"])
    got[torch.tensor(order)] = out.batch["advantages"]
    assert torch.equal(got, expected.tokens)
    assert torch.equal(out.batch["returns"], out.batch["advantages"])
    assert step.stats["planshape/alpha"] == pytest.approx(run_shaper(BLOCK).alpha(global_steps - 1))
    # PlanPO gives successes turn-varying credit and zero outside assistant tokens
    assert torch.all(got[torch.tensor(MASKS) == 0] == 0)
    assert len(torch.unique(got[0][torch.tensor(MASKS[0]) == 1])) == 3


def test_alpha_follows_the_step():
    alphas = []
    for global_steps in (1, 5, 11):
        SkipManager.set_step(global_steps)
        with planpo.advantage_step() as step:
            compute_advantage(_batch(list(range(8))), adv_estimator="planpo", config=_algorithm())
        alphas.append(step.stats["planshape/alpha"])
    assert alphas == pytest.approx([0.1, 0.08, 0.05])  # 0.1 -> 0.05 linearly over 10 completed steps


def test_without_a_trainer_step_it_counts_calls(caplog):
    SkipManager.set_step(-1)
    planpo.fallback.calls, planpo.fallback.warned = 0, False
    for expected in (0, 1):
        with planpo.advantage_step() as step:
            compute_advantage(_batch(list(range(8))), adv_estimator="planpo", config=_algorithm())
        assert step.stats["planshape/alpha"] == pytest.approx(0.1 - 0.005 * expected)
    assert "SkipManager.step is not set" in caplog.text


def test_missing_or_bad_settings_fail_with_what_to_set():
    SkipManager.set_step(1)
    bare = OmegaConf.create({"adv_estimator": "planpo"})
    with pytest.raises(ConfigError, match=r"\+algorithm.planpo.database="):
        compute_advantage(_batch(list(range(8))), adv_estimator="planpo", config=bare)
    with pytest.raises(ConfigError, match="schedul"):
        compute_advantage(_batch(list(range(8))), adv_estimator="planpo", config=_algorithm(schedul="stage2"))
