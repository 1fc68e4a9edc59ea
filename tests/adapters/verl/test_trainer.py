"""The registered ``planshape`` V1 trainer: chosen by ``trainer.v1.trainer_mode``, sync in behaviour, and its
steps hand VERL's tracker every planshape metric with the step it belongs to.

The rows go through VERL's own pieces: the planshape reward manager scores each transcript at the row's
``global_steps``; ``AgentLoopOutput.as_dict`` and ``list_of_dict_to_tensordict`` build the row as the V1 agent
loop does; TransferQueue (a local Ray instance) holds them; the trainer's advantage and metric steps read them
back; VERL's ``Tracking`` (file backend) writes what the step hands it.
"""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl("planshape_trainer")

import json
import os

import numpy as np
from planshape.adapters.verl.config import run_shaper
from planshape.adapters.verl.trainer import PlanshapeTrainer
from verl.experimental.agent_loop.agent_loop import AgentLoopOutput
from verl.trainer.ppo.reward import load_reward_manager
from verl.trainer.ppo.v1 import get_trainer_cls
from verl.trainer.ppo.v1.replay_buffer import ReplayBuffer
from verl.trainer.ppo.v1.trainer_sync import PPOTrainerSync
from verl.utils.skip.skip_manager import SkipManager
from verl.utils.tensordict_utils import list_of_dict_to_tensordict
from verl.utils.tracking import Tracking

from ..metric_keys import GROUP_CHOICES, expected_keys, planshape_keys
from .helpers import response_ids, reward_row, tool_call, verl_config

BASE = ["algorithm.adv_estimator=planpo", "reward.reward_manager.name=planshape", "+algorithm.planpo.database=sample",
        "+algorithm.planpo.schedule=curriculum-8b", "+algorithm.planpo.total_steps=500",
        "actor_rollout_ref.rollout.n=4", "data.train_batch_size=2"]
PLANSHAPE = ["trainer.v1.trainer_mode=planshape", *BASE]


def _trainer(overrides: list[str]) -> PlanshapeTrainer:
    cfg = verl_config(overrides)
    trainer = get_trainer_cls(cfg.trainer.v1.trainer_mode)(config=cfg)  # as TaskRunnerV1.run does
    assert isinstance(trainer, PlanshapeTrainer)
    trainer._init_resource_pool_mgr()  # the part of ``init`` the metric step reads (the GPU count); no GPU needed
    return trainer


def _put_step(tq, trainer, tokenizer, sample_rows, global_steps: int):
    """One step's rows in TransferQueue, scored by the planshape manager at the step, as the agent loop puts them."""
    manager = load_reward_manager(trainer.config, tokenizer)
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    fields, tags, keys, rewards = [], [], [], []
    tools = run_shaper({"database": "sample", "estimator": "grpo"}).tools()
    for i, row in enumerate(sample_rows):
        q = row["query"]
        call = {"origin": q["org"], "destination": q["dest"], "date": q["date"][0]}
        ids, mask = response_ids(tokenizer, [("assistant", tool_call("search_flights", call)),
                                             ("tool", tools.call("search_flights", call)), ("assistant", row["text"])])
        scored = manager.loop.run_until_complete(manager.run_single(reward_row(tokenizer, prompt, ids, {
            "data_source": "travelplanner", "reward_model": {"style": "rule", "ground_truth": json.dumps(q)},
            "extra_info": {"index": i}, "global_steps": global_steps})))
        rewards.append(scored["reward_score"])
        out = AgentLoopOutput(prompt_ids=prompt, response_ids=ids, response_mask=mask, num_turns=4,
                              reward_score=scored["reward_score"], metrics={},
                              extra_fields={"reward_extra_info": scored["reward_extra_info"],
                                            "min_global_steps": global_steps - 1, "max_global_steps": global_steps - 1})
        field = out.as_dict()
        uid = f"{row['group']}-step{global_steps}"  # VERL draws a fresh uid per prompt and step
        field.update({"uid": uid, "global_steps": global_steps})
        fields.append(field)
        keys.append(f"{uid}_{row['trajectory']}_0")  # V1's key: {uid}_{session_id}_{index}
        tags.append({"status": "success", "global_steps": global_steps, "min_global_steps": global_steps - 1,
                     "max_global_steps": global_steps - 1})
    batch = tq.kv_batch_put(keys=keys, partition_id="train", fields=list_of_dict_to_tensordict(fields), tags=tags)
    return batch, rewards


def _run_steps(tq, trainer, tokenizer, sample_rows, log_path, steps=(1, 2)) -> tuple[list[dict], list[list[float]]]:
    """What ``PPOTrainer.fit`` does around each step's metrics, with VERL's own tracker writing them to a file."""
    os.environ["VERL_FILE_LOGGER_PATH"] = str(log_path)
    tracker = Tracking(project_name="planshape", experiment_name="test", default_backend=["file"])
    all_rewards = []
    try:
        for global_steps in steps:
            SkipManager.set_step(global_steps)  # fit sets it before the step runs
            batch, rewards = _put_step(tq, trainer, tokenizer, sample_rows, global_steps)
            all_rewards.append(rewards)
            metrics: dict = {}
            trainer._compute_advantage(batch, metrics)
            trainer._compute_metrics(batch, metrics, {"step": 1.0, "gen": 0.5}, global_steps=global_steps, epoch=0)
            tracker.log(data=metrics, step=global_steps)
            tq.kv_clear(keys=batch.keys, partition_id=batch.partition_id)
    finally:
        tracker.finish()
        os.environ.pop("VERL_FILE_LOGGER_PATH", None)
    return [json.loads(line) for line in log_path.read_text().splitlines()], all_rewards


def test_the_registered_trainer_is_the_sync_trainer():
    trainer = _trainer(PLANSHAPE)
    sync = get_trainer_cls("sync")(config=verl_config(["trainer.v1.trainer_mode=sync", *BASE]))
    assert isinstance(trainer, PPOTrainerSync) and type(sync) is PPOTrainerSync
    # every literal `trainer_mode == "sync"` check of VERL's trainer sees the sync trainer
    assert trainer.trainer_mode == sync.trainer_mode == "sync"
    assert trainer.config.trainer.v1.trainer_mode == "sync"
    assert type(trainer.replay_buffer) is type(sync.replay_buffer) is ReplayBuffer
    assert trainer.parameter_sync_step == sync.parameter_sync_step


def test_every_planshape_metric_reaches_the_tracker_at_its_step(transfer_queue, tokenizer, sample_rows, tmp_path):
    trainer = _trainer(PLANSHAPE)
    lines, rewards = _run_steps(transfer_queue, trainer, tokenizer, sample_rows, tmp_path / "log.jsonl")
    shaper = trainer.shaper
    assert [line["step"] for line in lines] == [1, 2]
    for line, step_rewards in zip(lines, rewards, strict=True):
        data, step = line["data"], line["step"]
        assert planshape_keys(data) == expected_keys()  # all 57 keys (every group is on by default)
        assert data["training/global_step"] == step  # VERL's own metrics of the same step, in the same line
        assert data["planshape/reward"] == pytest.approx(np.mean(step_rewards))
        assert data["planshape/alpha"] == pytest.approx(shaper.alpha(step - 1))  # the step the advantages used
        assert data["planshape/turns_mean"] == 2.0  # two assistant turns per transcript
        assert data["planshape/failure/commonsense:is_valid_restaurants"] == pytest.approx(1 / 8)
    assert lines[0]["data"]["planshape/alpha"] > lines[1]["data"]["planshape/alpha"]  # α decays step by step


@pytest.mark.parametrize("groups", GROUP_CHOICES, ids="+".join)
def test_each_metric_group_changes_exactly_its_keys(transfer_queue, tokenizer, sample_rows, tmp_path, groups):
    trainer = _trainer([*PLANSHAPE, f"+algorithm.planpo.metrics=[{','.join(groups)}]"])
    lines, _ = _run_steps(transfer_queue, trainer, tokenizer, sample_rows, tmp_path / "log.jsonl", steps=(1,))
    assert planshape_keys(lines[0]["data"]) == expected_keys(groups)
