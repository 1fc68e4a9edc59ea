"""VERL's padding does not reach planshape's logged statistics, in the sync and both async planshape trainers.

VERL 0.9's ``_balance_batch`` pads a batch with synthetic rows (response mask all 0, a ``pad...`` uid of their own,
``is_padding`` in their tag, the first row's extra fields copied) up to a multiple of lcm(data-parallel size, actor
mini-batch rows): with 2 prompts x 4 rollouts, a mini-batch of 8 rows and dp=3, 8 rows become 24. Each step here
runs VERL's own ``_balance_batch`` (which pads), then the trainer's advantage and metric steps, once with dp=3 and
once with dp=1 (no padding): every ``planshape/*`` metric must be the same, and equal to the 8 real rows' values.
"""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl("async_trainers")

import numpy as np
from planshape.adapters.verl.trainer import TRAINERS
from verl.trainer.ppo.v1 import get_trainer_cls
from verl.utils.skip.skip_manager import SkipManager

from .helpers import verl_config
from .test_trainer_async import BASE, SEPARATE, _put, _rows

MINI_BATCH_ROWS = 8  # actor_rollout_ref.actor.ppo_mini_batch_size=2 prompts x rollout.n=4


class ActorWorkers:
    """What ``_balance_batch`` asks of the actor's worker group: the data-parallel rank of each worker."""

    def __init__(self, dp: int):
        self._dispatch_info = {"actor": list(range(dp))}


def _trainer(mode: str, dp: int, tokenizer):
    extra = SEPARATE if mode.endswith("separate_async") else []
    trainer = get_trainer_cls(mode)(config=verl_config([f"trainer.v1.trainer_mode={mode}", *BASE, *extra]))
    assert type(trainer) is TRAINERS[mode]
    trainer._init_resource_pool_mgr()  # the GPU count the metric step reads; no GPU needed
    trainer.tokenizer = tokenizer  # what init loads with the model (the padding rows are its EOS)
    trainer.actor_rollout_wg = ActorWorkers(dp)
    return trainer


def _step(trainer, tq, rows: list[dict], global_steps: int) -> tuple[dict, int]:
    """One step as ``_step_once`` runs it from the sampled batch on: balance (pad), advantages, metrics."""
    before = SkipManager.step
    SkipManager.set_step(global_steps)  # fit sets both before the step runs
    trainer.global_steps = global_steps
    batch = _put(tq, rows)
    metrics: dict = {}
    try:
        batch = trainer._balance_batch(batch, metrics=metrics)
        trainer._compute_advantage(batch, metrics)
        trainer._compute_metrics(batch, metrics, {"step": 1.0, "gen": 0.5}, global_steps=global_steps, epoch=0)
    finally:
        tq.kv_clear(keys=batch.keys, partition_id=batch.partition_id)
        SkipManager.set_step(before)
    return metrics, sum(bool(tag.get("is_padding", False)) for tag in batch.tags)


@pytest.mark.parametrize("mode", sorted(TRAINERS))
def test_padding_rows_change_no_logged_statistic(mode, transfer_queue, tokenizer, sample_rows):
    padded_trainer, plain_trainer = _trainer(mode, 3, tokenizer), _trainer(mode, 1, tokenizer)
    rows = (_rows(padded_trainer, tokenizer, sample_rows, "easy-3day", 1)
            + _rows(padded_trainer, tokenizer, sample_rows, "medium-5day", 1))
    assert len(rows) == MINI_BATCH_ROWS
    padded, pads = _step(padded_trainer, transfer_queue, rows, 1)
    plain, none = _step(plain_trainer, transfer_queue, rows, 1)
    assert (pads, none) == (16, 0)  # 8 rows padded to lcm(3, 8) = 24 by VERL's own code; dp=1 pads nothing

    ours = sorted(k for k in plain if k.startswith("planshape/"))
    assert ours == sorted(k for k in padded if k.startswith("planshape/")) and len(ours) > 50
    assert {k: padded[k] for k in ours} == pytest.approx({k: plain[k] for k in ours}, abs=1e-9)
    # and they are the real rows' values (two assistant turns per transcript; the reward's own verdicts)
    assert padded["planshape/turns_mean"] == 2.0 and padded["planshape/turns_max"] == 2.0
    assert padded["planshape/success_rate"] == pytest.approx(np.mean([r["acc"] for r in rows]))
    assert padded["planshape/reward"] == pytest.approx(np.mean([r["score"] for r in rows]))
    assert padded["planshape/groups_multi_success"] == 1.0  # both real groups; the padding's group is none
