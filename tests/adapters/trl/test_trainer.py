"""End to end on CPU: the real TRL GRPOTrainer loop, tool calls, planshape reward and per-token advantages.

The expected advantages are computed here from the core's estimator (``planshape.shaping.advantages``) on turn
lengths read from the masks with plain Python, independently of the adapter and of the facade's token path.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ..metric_keys import GROUP_CHOICES, expected_keys, planshape_keys
from .scripted import recording, scripted

G = 4


def grpo_config(tmp_path, **overrides):
    from trl import GRPOConfig

    settings = dict(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=2 * G, num_generations=G,
                    max_completion_length=1024, learning_rate=1e-3, use_cpu=True, bf16=False,
                    gradient_checkpointing=False, beta=0.0, dataloader_num_workers=0, seed=0, report_to="none",
                    save_strategy="no", logging_steps=1, max_tool_calling_iterations=2, loss_type="grpo")
    settings.update(overrides)
    return GRPOConfig(**settings)


def make_trainer(cls, shaper, tokenizer, records, tmp_path, reward_funcs=None, **overrides):
    from planshape.adapters.trl.data import to_dataset
    from planshape.adapters.trl.reward import PlanshapeReward
    from planshape.adapters.trl.tiny import tiny_model
    from planshape.adapters.trl.tools import planner_tools

    reward_funcs = reward_funcs or [PlanshapeReward(shaper)]
    return cls(model=tiny_model(tokenizer), reward_funcs=reward_funcs, args=grpo_config(tmp_path, **overrides),
               train_dataset=to_dataset(records, shaper), processing_class=tokenizer, tools=planner_tools(shaper))


def runs(row: list[int]) -> list[int]:
    """Lengths of the maximal runs of 1s, by a plain scan."""
    out, length = [], 0
    for bit in [*row, 0]:
        if bit:
            length += 1
        elif length:
            out.append(length)
            length = 0
    return out


def expected_planpo(scores, success, mask, step, total_steps=2):
    """The core's PlanPO (default options, α(k) of the paper's decay) broadcast by hand onto the mask."""
    from planshape.shaping.advantages import Rollouts, planpo

    lengths = [runs(r) for r in mask.tolist()]
    groups = [i // G for i in range(len(lengths))]
    alpha = 0.1 - (0.1 - 0.05) * min(step / total_steps, 1.0)
    result = planpo(Rollouts.build(groups, scores, success, lengths), alpha=alpha)
    out = torch.zeros(mask.shape, dtype=torch.float64)
    k = 0
    for i, row in enumerate(mask.tolist()):
        col = 0
        for length in runs(row):
            while not row[col]:
                col += 1
            out[i, col:col + length] = float(result.per_turn[k])
            col += length
            k += 1
    return out, alpha


def loss_rows_match(generated: dict, losses: list[dict], key: str = "advantages") -> int:
    """Each loss row's advantages equal those of the generated row with the same completion; returns rows seen."""
    ids = generated["completion_ids"]
    seen = 0
    for batch in losses:
        for row_ids, row_adv in zip(batch["completion_ids"], batch[key], strict=True):
            matches = [i for i in range(len(ids)) if torch.equal(ids[i], row_ids)]
            assert matches, "a loss row matches no generated row"
            assert any(torch.allclose(generated[key][i], row_adv) for i in matches)
            seen += 1
    return seen


def test_planpo_trainer_two_steps_with_tools(shaper, tokenizer, sample_records, sample_rollouts, tmp_path):
    from planshape.adapters.trl.trainer import PlanPOTrainer

    cls = recording(scripted(PlanPOTrainer, sample_rollouts, G), "batches")
    trainer = make_trainer(cls, shaper, tokenizer, sample_records, tmp_path)
    trainer.train()

    assert trainer.state.global_step == 2 and len(trainer.batches) == 2
    for batch, losses in zip(trainer.batches, [trainer.batches_loss[:1], trainer.batches_loss[1:]], strict=True):
        out, step = batch["output"], batch["step"]
        mask = out["completion_mask"] * out["tool_mask"]
        turns = [len(runs(r)) for r in mask.tolist()]
        assert all(t == 2 for t in turns[:3]) and set(turns) <= {1, 2}  # tool call, then answer (or budget cut)
        assert out["advantages"].shape == mask.shape

        planshape_rewards = batch["rewards_per_func"][:, 0].double().numpy()
        assert sorted(set(planshape_rewards[:2])) == [5.0]  # the scripted passing answers
        success = planshape_rewards >= 5.0 - 1e-6
        expected, alpha = expected_planpo(planshape_rewards, success, mask, step)
        torch.testing.assert_close(out["advantages"].double(), expected, rtol=1e-5, atol=1e-6)
        assert out["advantages"].abs().sum() > 0
        assert loss_rows_match(out, losses) == 2 * G  # the loss used exactly these advantages

    steps = [entry for entry in trainer.state.log_history if "loss" in entry]  # one log line per optimizer step
    assert [e["step"] for e in steps] == [1, 2]
    for entry in steps:  # every planshape metric, in the line of the step it belongs to
        assert planshape_keys(entry) == expected_keys()
    alphas = [e["planshape/alpha"] for e in trainer.state.log_history if "planshape/alpha" in e]
    assert alphas == pytest.approx([0.1, 0.075])
    calls = [e["tools/call_frequency"] for e in trainer.state.log_history if "tools/call_frequency" in e]
    assert calls and min(calls) >= 1.0
    successes = [e["planshape/success"] for e in trainer.state.log_history if "planshape/success" in e]
    assert successes and min(successes) > 0


@pytest.mark.parametrize("groups", GROUP_CHOICES, ids="+".join)
def test_each_metric_group_changes_exactly_its_keys(tokenizer, sample_records, sample_rollouts, tmp_path, groups):
    from planshape.adapters.trl.trainer import PlanPOTrainer
    from planshape.shaping.facade import Shaper

    shaper = Shaper.from_mapping({"database": "sample", "total_steps": 1, "metrics": list(groups)})
    trainer = make_trainer(scripted(PlanPOTrainer, sample_rollouts, G), shaper, tokenizer, sample_records, tmp_path,
                           max_steps=1)
    trainer.train()
    (entry,) = [e for e in trainer.state.log_history if "loss" in e]
    assert planshape_keys(entry) == expected_keys(groups)


@pytest.mark.parametrize("scale_rewards", ["group", "none"])
def test_grpo_estimator_reproduces_stock_trl(shaper, tokenizer, sample_records, sample_rollouts, tmp_path,
                                             scale_rewards):
    from planshape.adapters.trl.reward import PlanshapeReward
    from planshape.adapters.trl.trainer import PlanPOMixin
    from planshape.shaping.facade import Shaper
    from trl import GRPOTrainer

    grpo = Shaper.from_mapping({"database": "sample", "estimator": "grpo"})
    stock = recording(scripted(GRPOTrainer, sample_rollouts, G), "stock")
    probe = recording(type("Probe", (PlanPOMixin, stock), {}), "planshape")

    def length(completions, **_):  # a second, weighted reward: TRL sums it with planshape's
        return [float(len(str(c))) / 1000 for c in completions]

    trainer = make_trainer(probe, grpo, tokenizer, sample_records, tmp_path, max_steps=1,
                           reward_funcs=[PlanshapeReward(grpo), length], reward_weights=[1.0, 0.5],
                           scale_rewards=scale_rewards)
    trainer.train()
    ours, theirs = trainer.planshape[0]["output"], trainer.stock[0]["output"]
    mask = ours["completion_mask"] * ours["tool_mask"]
    assert theirs["advantages"].dim() == 1 and theirs["advantages"].abs().sum() > 0
    torch.testing.assert_close(ours["advantages"], theirs["advantages"][:, None] * mask, rtol=1e-5, atol=1e-6)
    assert np.isclose(trainer.state.log_history[0]["planshape/alpha"], 0.0)


def test_start_up_errors_name_the_fix(shaper, tokenizer, sample_records, tmp_path):
    from planshape.adapters.trl.reward import PlanshapeReward
    from planshape.adapters.trl.trainer import PlanPOTrainer
    from planshape.shaping.facade import ConfigError, Shaper

    with pytest.raises(ConfigError, match="exactly one PlanshapeReward"):
        make_trainer(PlanPOTrainer, shaper, tokenizer, sample_records, tmp_path,
                     reward_funcs=[lambda completions, **_: [0.0] * len(completions)])
    with pytest.raises(ConfigError, match="sum_then_normalize"):
        make_trainer(PlanPOTrainer, shaper, tokenizer, sample_records, tmp_path,
                     multi_objective_aggregation="normalize_then_sum")
    with pytest.raises(ConfigError, match="GRPOConfig.max_steps runs 3 optimizer steps"):
        make_trainer(PlanPOTrainer, shaper, tokenizer, sample_records, tmp_path, max_steps=3)  # total_steps: 2
    grpo = Shaper.from_mapping({"database": "sample", "estimator": "grpo"})
    with pytest.raises(ConfigError, match="scale_rewards='batch'"):
        make_trainer(PlanPOTrainer, grpo, tokenizer, sample_records, tmp_path,
                     reward_funcs=[PlanshapeReward(grpo)], scale_rewards="batch")


# ------------------------------------------------- TRL's reward settings: honoured or refused (issue 30)


def test_truncated_completions_are_left_out_of_the_loss_and_kept_in_their_group(shaper, tokenizer, sample_records,
                                                                                 sample_rollouts, tmp_path):
    """``mask_truncated_completions=True``: TRL zeroes a truncated completion's mask; its advantages are then 0, and
    its reward still counts in its group's statistics, as TRL's own advantages count it."""
    from planshape.adapters.trl.trainer import PlanPOTrainer

    cls = recording(scripted(PlanPOTrainer, sample_rollouts, G), "batches")
    trainer = make_trainer(cls, shaper, tokenizer, sample_records, tmp_path, mask_truncated_completions=True,
                           max_completion_length=400)
    trainer.train()
    batch = trainer.batches[0]
    out = batch["output"]
    mask = out["completion_mask"] * out["tool_mask"]
    cut = mask.sum(dim=1) == 0
    assert 0 < int(cut.sum()) < len(cut)  # some completions were truncated, not all
    assert not out["advantages"][cut].any()
    rewards = batch["rewards_per_func"][:, 0].double().numpy()
    expected, _ = expected_planpo(rewards, rewards >= 5.0 - 1e-6, mask, batch["step"])
    torch.testing.assert_close(out["advantages"].double(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("scale_rewards", ["none", "batch"])
def test_planpo_refuses_trls_reward_scaling(shaper, tokenizer, sample_records, tmp_path, scale_rewards):
    """PlanPO normalises with its own options; TRL's ``scale_rewards`` would be ignored, so it is refused."""
    from planshape.adapters.trl.trainer import PlanPOTrainer
    from planshape.shaping.facade import ConfigError

    with pytest.raises(ConfigError, match="estimator_options.norm"):
        make_trainer(PlanPOTrainer, shaper, tokenizer, sample_records, tmp_path, scale_rewards=scale_rewards)
