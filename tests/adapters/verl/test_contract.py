"""The contract on every supported VERL release (0.7.1 and 0.9.1 in CI), through VERL's own code: registration
in a fresh process the way that release loads plugins, PlanPO through the legacy trainer's ``compute_advantage``
equal token for token to the paper's plain loops (tests/paper_reference.py), and the planshape metrics in the
log VERL writes (validation: ``RayPPOTrainer._val_metrics_update`` into ``Tracking``, the path every release has;
the training log of 0.9's planshape trainers is test_trainer.py's). The 45 gold plans through the reward manager:
test_reward.py, which runs on every release too.
"""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
from omegaconf import OmegaConf
from planshape.adapters.verl import advantages as planpo
from planshape.adapters.verl.support import ENTRY_POINT, PLUGIN_MODULE, STEP, SUPPORT, V1
from verl import DataProto
from verl.trainer.ppo.ray_trainer import RayPPOTrainer, compute_advantage
from verl.trainer.ppo.reward import load_reward_manager
from verl.utils.tracking import Tracking

from ...paper_reference import planpo_reference, runs, token_reference
from ..metric_keys import GROUPS, expected_keys
from .helpers import response_ids, reward_row, verl_config

VERSION = SUPPORT.check()
REGISTERED = ("import verl\n"
              "from verl.trainer.ppo.core_algos import get_adv_estimator_fn\n"
              "from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls\n"
              "print(get_adv_estimator_fn('planpo').__module__, get_reward_manager_cls('planshape').__name__)\n")


def _fresh(code: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "VERL_USE_EXTERNAL_MODULES"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**environ, **env},
                          timeout=300)


def test_registration_the_way_this_release_loads_plugins():
    external = _fresh(REGISTERED, VERL_USE_EXTERNAL_MODULES=PLUGIN_MODULE)  # every release reads this variable
    assert external.returncode == 0, external.stderr[-2000:]
    assert external.stdout.split() == ["planshape.adapters.verl.advantages", "PlanshapeRewardManager"]
    plain = _fresh(REGISTERED)
    if SUPPORT.has(ENTRY_POINT):  # 0.9: the installed entry point alone
        assert plain.returncode == 0 and plain.stdout == external.stdout, plain.stderr[-2000:]
    else:  # 0.7/0.8: nothing without the variable, which `planshape verl check` says
        assert plain.returncode != 0 and "Unknown advantage estimator" in plain.stderr
    if SUPPORT.has(V1):
        trainers = _fresh("import verl\nfrom verl.trainer.ppo.v1 import get_trainer_cls\n"
                          "print(*(get_trainer_cls(m).__name__ for m in ('planshape', 'planshape_colocate_async', "
                          "'planshape_separate_async')))\n")
        assert trainers.stdout.split() == ["PlanshapeTrainer", "PlanshapeColocateAsyncTrainer",
                                           "PlanshapeSeparateAsyncTrainer"], trainers.stderr[-2000:]


def test_the_check_says_what_this_release_runs(monkeypatch):
    from planshape.adapters.verl.check import check_launch as check

    monkeypatch.setenv("VERL_USE_EXTERNAL_MODULES", PLUGIN_MODULE)
    report = check(["algorithm.adv_estimator=planpo", "reward.reward_manager.name=planshape",
                    "+algorithm.planpo.database=sample", "+algorithm.planpo.total_steps=500"])
    assert report.lines[0] == f"verl {VERSION} (planshape supports 0.7.1 to 0.9.x)"
    for what, ok, _ in SUPPORT.rows(VERSION):
        prefix = "runs: " if ok else f"not in {VERSION}: "
        assert any(line.startswith(prefix) and what in line for line in report.lines), (what, report.lines)
    if not SUPPORT.has(ENTRY_POINT):
        monkeypatch.delenv("VERL_USE_EXTERNAL_MODULES")
        assert any("export VERL_USE_EXTERNAL_MODULES=planshape.adapters.verl.register" in e
                   for e in check(["algorithm.adv_estimator=planpo"]).errors)


# (score, assistant turn lengths) of two groups; success = the score reaches stage 1's maximum, 5
ROLLOUTS = [(5.0, [7, 3, 12]), (2.875, [5, 9]), (5.0, [4, 4, 4, 8]), (0.0, [6]),
            (5.0, [9, 2]), (5.0, [3, 3, 3]), (0.875, [11, 4]), (0.0, [2, 2, 2, 2, 2])]
UIDS = np.array(["a"] * 4 + ["b"] * 4, dtype=object)


def _mask(lengths: list[int], width: int) -> list[int]:
    row: list[int] = []
    for length in lengths:
        row += [1] * length + [0] * 3  # each turn, then a tool observation
    return row + [0] * (width - len(row))


def test_planpo_through_the_legacy_trainers_compute_advantage_is_the_paper(monkeypatch):
    width = 48
    masks = [_mask(lengths, width) for _, lengths in ROLLOUTS]
    mask = torch.tensor(masks, dtype=torch.float32)
    rewards = torch.zeros_like(mask)
    for i, (score, _) in enumerate(ROLLOUTS):
        rewards[i, max(j for j, bit in enumerate(masks[i]) if bit)] = score  # the score on the last valid token
    order = np.random.default_rng(0).permutation(len(ROLLOUTS))  # _balance_batch reorders rows
    data = DataProto.from_dict(tensors={"token_level_rewards": rewards[order], "response_mask": mask[order]},
                               non_tensors={"uid": UIDS[order]})
    algorithm = OmegaConf.create({"adv_estimator": "planpo", "gamma": 1.0, "lam": 1.0,
                                  "planpo": {"database": "sample", "total_steps": 150}})
    completed = 30
    if SUPPORT.has(STEP):
        from verl.utils.skip.skip_manager import SkipManager

        monkeypatch.setattr(SkipManager, "step", completed + 1)  # the trainer's global_steps
    else:  # no step reaches an estimator before 0.9: it counts its own calls
        monkeypatch.setattr(planpo.fallback, "calls", completed)
    with planpo.advantage_step() as step:
        out = compute_advantage(data, adv_estimator="planpo", config=algorithm, num_repeat=4)
    alpha = 0.1 - 0.05 * completed / 150
    lengths = [lengths for _, lengths in ROLLOUTS]
    scores = [score for score, _ in ROLLOUTS]
    expected = token_reference(masks, planpo_reference(list(UIDS), scores, [s == 5.0 for s in scores], lengths,
                                                       alpha))
    got = out.batch["advantages"]
    for row, i in zip(got, order, strict=True):
        assert [end - start for start, end in runs(masks[i])] == lengths[i]
        torch.testing.assert_close(row, torch.tensor(expected[i], dtype=row.dtype), rtol=1e-5, atol=1e-6)
    assert torch.equal(out.batch["returns"], got)
    assert step.stats["planshape/alpha"] == pytest.approx(alpha)


def test_the_planshape_metrics_reach_the_log_verl_writes(tokenizer, sample_rows, tmp_path):
    """Validation (every release): the reward's extra info of each trajectory, reduced by VERL's own
    ``_val_metrics_update`` and written by its ``Tracking``, holds every planshape metric."""
    cfg = verl_config(["reward.reward_manager.name=planshape", "+algorithm.planpo.database=sample",
                       "+algorithm.planpo.total_steps=500"])
    manager = load_reward_manager(cfg, tokenizer)
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    infos: dict[str, list] = {"reward": []}
    for row in sample_rows:
        ids, _ = response_ids(tokenizer, [("assistant", row["text"])])
        out = manager.loop.run_until_complete(manager.run_single(reward_row(tokenizer, prompt, ids, {
            "data_source": "travelplanner", "reward_model": {"ground_truth": json.dumps(row["query"])},
            "extra_info": {}, "global_steps": 1})))
        infos["reward"].append(out["reward_score"])
        for key, value in out["reward_extra_info"].items():
            infos.setdefault(key, []).append(value)
    uids = [row["group"] for row in sample_rows]
    metrics = RayPPOTrainer._val_metrics_update(None, np.array(["travelplanner"] * len(uids)), uids, infos, [])
    os.environ["VERL_FILE_LOGGER_PATH"] = str(tmp_path / "log.jsonl")
    tracker = Tracking(project_name="planshape", experiment_name="contract", default_backend=["file"])
    try:
        tracker.log(data=metrics, step=1)
    finally:
        getattr(tracker, "finish", lambda: None)()  # 0.9's; 0.7's file backend writes each line as it logs
        os.environ.pop("VERL_FILE_LOGGER_PATH", None)
    (line,) = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    logged = {key.split("/", 2)[2].rsplit("/", 1)[0] for key in line["data"] if key.startswith("val-")
              and key.endswith("/mean@4")}
    assert expected_keys(g for g in GROUPS if g != "advantages") <= logged  # every reward-side planshape metric
    assert line["data"]["val-aux/travelplanner/planshape/reward/mean@4"] == pytest.approx(
        np.mean(infos["reward"]))
    assert line["data"]["val-core/travelplanner/acc/mean@4"] == pytest.approx(0.5)  # 4 of 8 sample rollouts pass


def test_planshape_plugins_names_the_installed_release_and_what_it_lacks():
    done = subprocess.run([str(Path(sys.executable).with_name("planshape")), "plugins"], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "COLUMNS": "2000"})
    assert done.returncode == 0, done.stderr[-2000:]
    (row,) = [line for line in done.stdout.splitlines() if line.strip("│ ").startswith("verl ")]
    assert SUPPORT.range in row and VERSION in row
    lacking = [what for what, ok, _ in SUPPORT.rows(VERSION) if not ok]
    assert all(what in row for what in lacking) and (lacking or row.rstrip("│ ").endswith("-"))
