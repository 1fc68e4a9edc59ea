"""VERL settings that change rewards or advantages are honoured or refused at start-up (issue 30): by
``planshape verl check``, by the planshape reward manager when VERL builds it, and by the estimator before it
writes any advantage. Nothing here is stood in for: VERL's own config composition, manager and estimator call."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import numpy as np  # noqa: E402
import torch  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402
from planshape.adapters.verl.check import check_launch  # noqa: E402
from planshape.shaping.facade import ConfigError  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.trainer.ppo.ray_trainer import compute_advantage  # noqa: E402

from .helpers import verl_config  # noqa: E402
from .test_check import data_dir, overrides, worker_env  # noqa: E402, F401 - the module's fixtures

OVERLONG = ["+reward.reward_kwargs.overlong_buffer_cfg.enable=true",
            "+reward.reward_kwargs.overlong_buffer_cfg.len=512",
            "+reward.reward_kwargs.overlong_buffer_cfg.penalty_factor=1.0", "+reward.reward_kwargs.max_resp_len=4096"]
COMPUTE_SCORE = ["reward.reward_manager.name=dapo",
                 "reward.custom_reward_function.path=pkg://planshape.adapters.verl.reward",
                 "+reward.custom_reward_function.reward_kwargs.planshape.database=sample",
                 "+reward.custom_reward_function.reward_kwargs.planshape.schedule=stage1"]


def _errors(*extra: str, script: str = "run_qwen3_8b_planpo.sh") -> list[str]:
    return check_launch(overrides(script, *extra)).errors


@pytest.mark.parametrize(("extra", "named"), [
    (["algorithm.norm_adv_by_std_in_grpo=false"], "estimator_options.norm=none"),
    (["algorithm.use_kl_in_reward=true"], "actor_rollout_ref.actor.use_kl_loss=true"),
    (OVERLONG, "the planshape manager would ignore it"),
    (["algorithm.gamma=0.95"], "+algorithm.planpo.estimator_options.gamma=0.95"),  # verl-agent's GiGPO scripts
    (["algorithm.lam=0.9"], "leave algorithm.lam at 1.0"),
])
def test_the_check_refuses_what_planpo_would_drop_or_misread(extra, named, worker_env, monkeypatch):  # noqa: F811
    errors = _errors(*extra)
    assert any(named in e for e in errors), errors


def test_the_overlong_penalty_under_dapo_is_refused_with_planpo_and_honoured_with_grpo(worker_env):  # noqa: F811
    planpo = _errors(*COMPUTE_SCORE, *OVERLONG, "+algorithm.planpo.schedule=stage1")
    assert any("PlanPO reads success from that score" in e for e in planpo), planpo
    grpo = _errors(*COMPUTE_SCORE, *OVERLONG, "+algorithm.planpo.schedule=stage1", "++algorithm.planpo.estimator=grpo",
                   "+reward.custom_reward_function.reward_kwargs.planshape.estimator=grpo")
    assert not any("overlong" in e for e in grpo), grpo  # VERL adds it to the score the estimator sums


def test_the_planshape_manager_refuses_an_overlong_penalty_when_verl_builds_it(worker_env, tokenizer):  # noqa: F811
    from verl.experimental.reward_loop.reward_manager import registry

    manager = registry.REWARD_MANAGER["planshape"]
    block = ["reward.reward_manager.name=planshape", "+algorithm.planpo.database=sample",
             "+algorithm.planpo.estimator=grpo"]  # the refusal holds whatever the estimator: the manager drops it
    with pytest.raises(ConfigError, match="overlong_buffer_cfg"):
        manager(verl_config([*block, *OVERLONG]), tokenizer)
    manager(verl_config(block), tokenizer)  # without the penalty it starts


def _batch() -> DataProto:
    mask = torch.ones(4, 3, dtype=torch.int64)
    rewards = torch.zeros(4, 3)
    rewards[:, -1] = torch.tensor([5.0, 0.0, 1.0, 5.0])
    return DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                               non_tensors={"uid": np.array(["a", "a", "b", "b"], dtype=object)})


@pytest.mark.parametrize(("setting", "named"), [
    ({"norm_adv_by_std_in_grpo": False}, "norm_adv_by_std_in_grpo"),
    ({"use_kl_in_reward": True}, "use_kl_in_reward"),
    ({"gamma": 0.95}, "algorithm.gamma=0.95 is a setting of VERL's own estimators"),
])
def test_the_estimator_refuses_before_writing_advantages(setting, named):
    algorithm = {"adv_estimator": "planpo", "gamma": 1.0, "lam": 1.0, "norm_adv_by_std_in_grpo": True,
                 "use_kl_in_reward": False, "planpo": {"database": "sample", "schedule": "stage1", "total_steps": 10}}
    data = _batch()
    compute_advantage(data, adv_estimator="planpo", config=OmegaConf.create(algorithm))  # accepted as it is
    with pytest.raises(ConfigError, match=named):
        compute_advantage(_batch(), adv_estimator="planpo", config=OmegaConf.create({**algorithm, **setting}))
