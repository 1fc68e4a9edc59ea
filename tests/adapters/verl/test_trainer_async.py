"""The async planshape V1 trainers (``planshape_colocate_async``, ``planshape_separate_async``): registered and
chosen by ``trainer.v1.trainer_mode`` as the sync one is, VERL's async trainer of the mode in behaviour, and two
steps of each hand VERL's tracker every planshape metric at its step and write PlanPO advantages equal, token for
token, to the paper's plain loops (tests/paper_reference.py).

Step 2 trains, as an async step does, on a group rolled out for step 1 (scored under step 1's stage) beside a
fresh one. The schedule switches stage between the two steps (dense stage 1, then stage 3: the pass alone), so a
success read from the score against step 2's maximum would call step 1's partial credit (2.875, 0.875) a
success; the trainer hands PlanPO each row's own verdict (``acc``) instead. Rows go through VERL's own pieces as
in test_trainer.py: the planshape reward manager, ``AgentLoopOutput.as_dict``, TransferQueue, the trainer's
advantage and metric steps, VERL's ``Tracking`` (file backend).
"""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl("async_trainers")

import json
import os

import numpy as np
import torch
from planshape.adapters.verl.config import run_shaper
from planshape.adapters.verl.trainer import PlanshapeColocateAsyncTrainer, PlanshapeSeparateAsyncTrainer
from verl.experimental.agent_loop.agent_loop import AgentLoopOutput
from verl.trainer.ppo.reward import load_reward_manager
from verl.trainer.ppo.v1 import get_trainer_cls
from verl.trainer.ppo.v1.replay_buffer import ReplayBufferAsync
from verl.trainer.ppo.v1.trainer_colocate_async import PPOTrainerColocateAsync
from verl.trainer.ppo.v1.trainer_separate_async import PPOTrainerSeparateAsync
from verl.utils.skip.skip_manager import SkipManager
from verl.utils.tensordict_utils import list_of_dict_to_tensordict
from verl.utils.tracking import Tracking

from ...paper_reference import planpo_reference, runs, token_reference
from ..metric_keys import expected_keys, planshape_keys
from .helpers import queued, response_ids, reward_row, tool_call, verl_config

SCHEDULE = "{name:switch,stages:[{start:0,weights:stage1},{start:1,weights:stage3}]}"
BASE = ["algorithm.adv_estimator=planpo", "reward.reward_manager.name=planshape", "+algorithm.planpo.database=sample",
        f"+algorithm.planpo.schedule={SCHEDULE}", "+algorithm.planpo.success.by=pass",
        "+algorithm.planpo.total_steps=500", "actor_rollout_ref.rollout.n=4", "data.train_batch_size=2",
        "actor_rollout_ref.actor.ppo_mini_batch_size=2"]
SEPARATE = ["trainer.v1.separate_async.parameter_sync_step=1", "actor_rollout_ref.rollout.nnodes=1",
            "actor_rollout_ref.rollout.n_gpus_per_node=1", "actor_rollout_ref.rollout.checkpoint_engine.backend=nccl"]
MODES = {"colocate_async": (PlanshapeColocateAsyncTrainer, PPOTrainerColocateAsync, []),
         "separate_async": (PlanshapeSeparateAsyncTrainer, PPOTrainerSeparateAsync, SEPARATE)}


def _trainer(mode: str, overrides: list[str] = ()):
    cls, _, extra = MODES[mode]
    cfg = verl_config([f"trainer.v1.trainer_mode=planshape_{mode}", *BASE, *extra, *overrides])
    trainer = get_trainer_cls(cfg.trainer.v1.trainer_mode)(config=cfg)  # as TaskRunnerV1.run does
    assert type(trainer) is cls
    trainer._init_resource_pool_mgr()  # what the metric step reads (the GPU count); no GPU needed
    return trainer


def _rows(trainer, tokenizer, sample_rows, group: str, rolled_out: int) -> list[dict]:
    """One group's rollouts for step ``rolled_out``, each scored by the planshape manager at that step."""
    manager = load_reward_manager(trainer.config, tokenizer)
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    tools = run_shaper({"database": "sample", "estimator": "grpo"}).tools()
    out = []
    for row in (r for r in sample_rows if r["group"] == group):
        q = row["query"]
        call = {"origin": q["org"], "destination": q["dest"], "date": q["date"][0]}
        ids, mask = response_ids(tokenizer, [("assistant", tool_call("search_flights", call)),
                                             ("tool", tools.call("search_flights", call)), ("assistant", row["text"])])
        scored = manager.loop.run_until_complete(manager.run_single(reward_row(tokenizer, prompt, ids, {
            "data_source": "travelplanner", "reward_model": {"ground_truth": json.dumps(q)}, "extra_info": {},
            "global_steps": rolled_out})))
        uid = f"{group}-step{rolled_out}"
        output = AgentLoopOutput(prompt_ids=prompt, response_ids=ids, response_mask=mask, num_turns=4,
                                 reward_score=scored["reward_score"], metrics={},
                                 extra_fields={"reward_extra_info": scored["reward_extra_info"],
                                               "min_global_steps": rolled_out - 1,
                                               "max_global_steps": rolled_out - 1})
        out.append({"key": f"{uid}_{row['trajectory']}_0", "uid": uid, "output": output, "mask": mask,
                    "step": rolled_out, "score": scored["reward_score"],
                    "acc": scored["reward_extra_info"]["acc"]})
    return out


def _put(tq, rows: list[dict]):
    """The rows in TransferQueue with the fields and tags V1's agent loop writes (``agent_loop_tq.py``)."""
    fields, tags = [], []
    for row in rows:
        field = row["output"].as_dict()
        field.update({"uid": row["uid"], "global_steps": row["step"], "loss_mask": field["response_mask"],
                      "input_ids": torch.cat([field["prompts"], field["responses"]])})
        field["position_ids"] = torch.arange(len(field["input_ids"]))
        fields.append(field)
        prompt_len, response_len = len(field["prompts"]), len(field["responses"])
        tags.append({"status": "success", "prompt_len": prompt_len, "response_len": response_len,
                     "seq_len": prompt_len + response_len, "global_steps": row["step"],
                     "min_global_steps": row["step"] - 1, "max_global_steps": row["step"] - 1})
    return tq.kv_batch_put(keys=[r["key"] for r in rows], partition_id="train",
                           fields=list_of_dict_to_tensordict(fields), tags=tags)


def _reference(rows: list[dict], alpha: float, success: list[bool]) -> list[list[float]]:
    masks = [r["mask"] for r in rows]
    lengths = [[end - start for start, end in runs(mask)] for mask in masks]
    per_turn = planpo_reference([r["uid"] for r in rows], [r["score"] for r in rows], success, lengths, alpha)
    return token_reference(masks, per_turn)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_the_registered_async_trainer_is_verls_trainer_of_the_mode(mode):
    trainer = _trainer(mode)
    _, verl_cls, extra = MODES[mode]
    plain = get_trainer_cls(mode)(config=verl_config([f"trainer.v1.trainer_mode={mode}", *BASE, *extra]))
    assert isinstance(trainer, verl_cls) and type(plain) is verl_cls
    assert trainer.trainer_mode == plain.trainer_mode == mode  # VERL's mode checks see its own mode
    assert type(trainer.replay_buffer) is type(plain.replay_buffer) is ReplayBufferAsync  # complete groups only
    assert trainer.parameter_sync_step == plain.parameter_sync_step


@pytest.mark.parametrize("mode", sorted(MODES))
def test_two_async_steps_log_the_metrics_at_their_steps_and_match_the_reference(
        mode, transfer_queue, tokenizer, sample_rows, tmp_path):
    trainer = _trainer(mode)
    shaper = trainer.shaper
    steps = {1: _rows(trainer, tokenizer, sample_rows, "easy-3day", 1)
             + _rows(trainer, tokenizer, sample_rows, "medium-5day", 1),
             2: _rows(trainer, tokenizer, sample_rows, "easy-3day", 1)  # rolled out for step 1, trained at step 2
             + _rows(trainer, tokenizer, sample_rows, "medium-5day", 2)}
    stale = [r["score"] for r in steps[2] if r["step"] == 1]
    assert [r["acc"] for r in steps[2] if r["step"] == 1] == [1.0, 1.0, 0.0, 0.0]
    assert stale == [5.0, 5.0, 2.875, 0.0] and shaper.max_reward(1) == 1.0  # 2.875 >= step 2's maximum, a fail

    os.environ["VERL_FILE_LOGGER_PATH"] = str(tmp_path / "log.jsonl")
    tracker = Tracking(project_name="planshape", experiment_name=mode, default_backend=["file"])
    before = SkipManager.step
    try:
        for global_steps, rows in steps.items():
            SkipManager.set_step(global_steps)  # fit sets it before the step runs
            batch = _put(transfer_queue, rows)
            metrics: dict = {}
            try:
                trainer._compute_advantage(batch, metrics)
                trainer._compute_metrics(batch, metrics, {"step": 1.0, "gen": 0.5}, global_steps=global_steps,
                                         epoch=0)
                got = transfer_queue.kv_batch_get(keys=batch.keys, partition_id=batch.partition_id,
                                                  select_fields=["advantages"])["advantages"].unbind()
            finally:
                transfer_queue.kv_clear(keys=batch.keys, partition_id=batch.partition_id)
            tracker.log(data=metrics, step=global_steps)
            alpha = shaper.alpha(global_steps - 1)
            verdicts = [bool(r["acc"]) for r in rows]
            expected = _reference(rows, alpha, verdicts)
            for row, want in zip(got, expected, strict=True):
                torch.testing.assert_close(row, torch.tensor(want, dtype=row.dtype), rtol=1e-5, atol=1e-6)
            if global_steps == 2:  # read from the score against step 2's maximum, the stale group would differ
                top = shaper.max_reward(global_steps - 1)
                assert expected != _reference(rows, alpha, [r["score"] >= top for r in rows])
    finally:
        SkipManager.set_step(before)
        tracker.finish()
        os.environ.pop("VERL_FILE_LOGGER_PATH", None)

    lines = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [line["step"] for line in lines] == [1, 2]
    for line, rows in zip(lines, steps.values(), strict=True):
        data = line["data"]
        assert planshape_keys(data) == expected_keys()  # every group is on by default
        assert data["training/global_step"] == line["step"]  # VERL's own metrics of the same step, in the same line
        assert data["planshape/reward"] == pytest.approx(np.mean([r["score"] for r in rows]))
        assert data["planshape/alpha"] == pytest.approx(shaper.alpha(line["step"] - 1))
        assert data["planshape/success_rate"] == pytest.approx(np.mean([r["acc"] for r in rows]))


@pytest.mark.parametrize("mode", sorted(MODES))
def test_rows_without_the_rewards_verdict_are_named(mode, transfer_queue, tokenizer, sample_rows):
    """A reward that is not planshape's returns no ``acc``: the async trainer says which row, not a wrong α."""
    trainer = _trainer(mode)
    rows = _rows(trainer, tokenizer, sample_rows, "easy-3day", 1)
    for row in rows:
        row["output"].extra_fields["reward_extra_info"] = {"score": row["score"]}
    with queued(transfer_queue, _put(transfer_queue, rows)) as batch, \
            pytest.raises(ValueError, match=rf"success.by=pass in {mode} \(the rows' 'acc'\): row '.*' has no 'acc'"):
        trainer._compute_advantage(batch, {})
