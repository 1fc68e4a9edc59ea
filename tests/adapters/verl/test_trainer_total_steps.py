"""planshape's ``total_steps`` follows what VERL's V1 trainer will run: once its ``_init_dataloader`` has computed
``total_training_steps`` (train set // batch size x epochs, or ``trainer.total_training_steps``), the planshape
trainer fills ``total_steps`` in or refuses a different one, and the ``planpo`` estimator VERL calls with the
trainer's ``algorithm`` section decays α over the same steps.

VERL's own trainer class and init steps, on CPU: ``_init_tokenizer`` loads a local model directory (the test
tokenizer and a tiny model config, no weights), ``_init_dataloader`` reads a small parquet file.
"""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl("planshape_trainer")

import numpy as np
import pandas as pd
import torch
from planshape.adapters.verl import advantages as planpo
from planshape.adapters.verl.config import run_shaper
from planshape.shaping.facade import ConfigError
from verl import DataProto
from verl.trainer.ppo.ray_trainer import compute_advantage
from verl.trainer.ppo.v1 import get_trainer_cls
from verl.utils.skip.skip_manager import SkipManager

from .helpers import verl_config

PROMPTS = 12  # // data.train_batch_size=2 = 6 steps per epoch


@pytest.fixture(scope="module")
def run_files(tmp_path_factory, tokenizer) -> list[str]:
    """A model directory (tokenizer + a tiny config) and train/val parquet files, as VERL's init reads them."""
    from transformers import Qwen2Config

    root = tmp_path_factory.mktemp("run")
    tokenizer.save_pretrained(root / "model")
    Qwen2Config(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                num_attention_heads=2, num_key_value_heads=1,
                architectures=["Qwen2ForCausalLM"]).save_pretrained(root / "model")
    rows = [{"prompt": [{"role": "user", "content": f"task {i}"}], "data_source": "webshop-like",
             "reward_model": {"style": "rule", "ground_truth": ""}, "extra_info": {"index": i}} for i in range(PROMPTS)]
    pd.DataFrame(rows).to_parquet(root / "train.parquet")
    pd.DataFrame(rows[:2]).to_parquet(root / "val.parquet")
    return [f"actor_rollout_ref.model.path={root / 'model'}", f"data.train_files={root / 'train.parquet'}",
            f"data.val_files={root / 'val.parquet'}", "data.train_batch_size=2", "data.dataloader_num_workers=0",
            "trainer.v1.trainer_mode=planshape", "algorithm.adv_estimator=planpo",
            "+algorithm.planpo.success.by=threshold", "+algorithm.planpo.success.threshold=10"]


def _init(overrides: list[str]):
    """``PlanshapeTrainer`` through VERL's registry and the first two steps of its ``init`` (``_setup``)."""
    config = verl_config(overrides)
    trainer = get_trainer_cls(config.trainer.v1.trainer_mode)(config=config)
    trainer._init_tokenizer()
    trainer._init_dataloader()
    return trainer


def _estimator_alpha(algorithm, global_steps: int) -> float:
    """α of the ``planpo`` estimator as VERL's advantage step calls it (``config=self.config.algorithm``)."""
    mask = torch.ones(4, 3, dtype=torch.int64)
    rewards = torch.zeros(4, 3)
    rewards[:2, -1] = 10.0
    data = DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                               non_tensors={"uid": np.array(["g"] * 4, dtype=object)})
    before = SkipManager.step
    SkipManager.set_step(global_steps)
    try:
        with planpo.advantage_step() as step:
            compute_advantage(data, adv_estimator="planpo", config=algorithm)
    finally:
        SkipManager.set_step(before)
    return step.stats["planshape/alpha"]


def test_total_steps_is_derived_from_the_dataloader(run_files):
    trainer = _init([*run_files, "trainer.total_epochs=3"])
    assert trainer.total_training_steps == 18  # VERL's own count: 6 steps per epoch x 3 epochs
    assert trainer.shaper.config.total_steps == 18
    assert trainer.config.algorithm.planpo.total_steps == 18  # what every Shaper built from the block reads
    assert run_shaper(trainer.config.algorithm.planpo) is trainer.shaper  # the estimator's, in this process
    assert _estimator_alpha(trainer.config.algorithm, 18) == pytest.approx(0.1 - 0.05 * 17 / 18)


def test_total_training_steps_fills_it_in_at_construction(run_files):
    trainer = get_trainer_cls("planshape")(config=verl_config([*run_files, "trainer.total_training_steps=7"]))
    assert trainer.shaper.config.total_steps == 7  # known before the dataloader: set from the config
    trainer._init_tokenizer()
    trainer._init_dataloader()
    assert trainer.shaper.config.total_steps == trainer.total_training_steps == 7
    assert _estimator_alpha(trainer.config.algorithm, 7) == pytest.approx(0.1 - 0.05 * 6 / 7)


def test_a_different_total_steps_is_refused_naming_both_numbers(run_files):
    with pytest.raises(ConfigError, match=r"total_steps: the config says 500, but VERL's trainer \(6 steps per "
                                          r"epoch.*trainer.total_epochs=3\) runs 18 optimizer steps; set "
                                          r"total_steps: 18"):
        _init([*run_files, "trainer.total_epochs=3", "+algorithm.planpo.total_steps=500"])
    with pytest.raises(ConfigError, match="the config says 500, but trainer.total_training_steps runs 7"):
        get_trainer_cls("planshape")(config=verl_config([*run_files, "trainer.total_training_steps=7",
                                                         "+algorithm.planpo.total_steps=500"]))


def test_an_equal_total_steps_passes(run_files):
    trainer = _init([*run_files, "trainer.total_epochs=3", "+algorithm.planpo.total_steps=18"])
    assert trainer.shaper.config.total_steps == 18
