"""Per-turn rewards in TRL: the real ``GRPOTrainer`` step with a ``rollout_func`` of the run's own that rewards turns
besides the outcome (a field beside each completion, ``step_rewards.field``), a reward function that is not
planshape's, no TravelPlanner files; the advantages the loss uses equal plain loops of the estimators' equations
(``tests/paper_reference.py``), token for token: GiGPO's discounted step returns (and verl-agent's episode statistics
over turns), GRPO, RLOO and PlanPO over the outcome plus the per-turn rewards (``reward=sum``)."""

from __future__ import annotations

import pytest

from .conftest import require_trl

require_trl("planpo_trainer")

import torch
from planshape.shaping.facade import ConfigError

from ...paper_reference import (
    gigpo_reference,
    grpo_reference,
    planpo_reference,
    rloo_reference,
    runs,
    token_reference,
)
from .test_estimators import ROOMS, G, _batches, _trainer, any_tokenizer, room_rollout
from .test_trainer import loss_rows_match

__all__ = ["any_tokenizer"]  # a fixture of test_estimators.py, used here

STEPS = [(-0.1, 0.0), (0.5, 0.0), (-0.1, -0.5), (0.0, 0.25)]  # per position in a group: its move's and answer's


def stepped_rollout(prompts, trainer):
    """``room_rollout`` (move, observe the room, answer; the room's state ids beside it) with each turn's reward
    besides the outcome beside it too."""
    out = room_rollout(prompts, trainer)
    out["turn_rewards"] = [list(STEPS[i % G]) for i in range(len(prompts))]
    return out


FIELD = {"step_rewards": {"field": "turn_rewards"}}
SUM = {"estimator_options": {"reward": "sum"}}
CASES = {
    "gigpo": ({"estimator": "gigpo", **FIELD},
              lambda g, r, lengths, states, steps: gigpo_reference(g, r, lengths, states, step_rewards=steps)),
    "gigpo-verl-agent": ({"estimator": "gigpo", **FIELD,
                          "estimator_options": {"episode_stats": "turns", "norm": "none"}},
                         lambda g, r, lengths, states, steps: gigpo_reference(
                             g, r, lengths, states, use_std=False, step_rewards=steps, episode_stats="turns")),
    "gigpo-similar": ({"estimator": "gigpo", **FIELD, "anchor": {"by": "state", "similarity": 0.35}},
                      lambda g, r, lengths, states, steps: gigpo_reference(g, r, lengths, states, step_rewards=steps,
                                                                           similarity=0.35)),  # start~attic
    "grpo-sum": ({"estimator": "grpo", **FIELD, **SUM},
                 lambda g, r, lengths, states, steps: grpo_reference(g, r, lengths, 1e-4, step_rewards=steps,
                                                                     reward="sum")),
    "rloo-sum": ({"estimator": "rloo", **FIELD, **SUM},
                 lambda g, r, lengths, states, steps: rloo_reference(g, r, lengths, steps, "sum")),
    "planpo-sum": ({"estimator": "planpo", **FIELD, **SUM, "total_steps": 2,
                    "success": {"by": "threshold", "threshold": 10}},
                   None),  # α decays within the two steps: the reference is taken at each batch's step below
}


@pytest.mark.parametrize("name", list(CASES))
def test_per_turn_rewards_reach_the_loss_as_their_references(any_tokenizer, tmp_path, name):
    from datasets import Dataset

    settings, reference = CASES[name]
    data = Dataset.from_list([{"prompt": p} for p in ["Open the red door.", "Open the blue door."]])
    trainer = _trainer(any_tokenizer, tmp_path, settings, cls_of=lambda base: base, tools=None,
                       rollout_func=stepped_rollout, data=data)
    trainer.train()
    for step, (batch, losses) in enumerate(_batches(trainer)):
        out = batch["output"]
        mask = (out["completion_mask"] * out["tool_mask"]).tolist()
        lengths = [[end - start for start, end in runs(row)] for row in mask]
        assert all(len(t) == 2 for t in lengths)
        scores = batch["rewards_per_func"][:, 0].tolist()
        groups = [i // G for i in range(len(mask))]
        steps = [list(STEPS[i % G]) for i in range(len(mask))]
        states = [["start", ROOMS[i % G]] for i in range(len(mask))]
        if CASES[name][1] is None:  # PlanPO: α(k) = 0.1 - 0.05 k / 2 at the batch's step k
            def reference(g, r, lengths, states, steps, alpha=0.1 - 0.025 * step):  # noqa: ARG001 - no states
                return planpo_reference(g, r, [x == 10 for x in r], lengths, alpha, step_rewards=steps, reward="sum")
        per_turn = reference(groups, scores, lengths, states, steps)
        assert per_turn != reference(groups, scores, lengths, states, None)  # the per-turn rewards count
        expected = torch.tensor(token_reference(mask, per_turn), dtype=torch.float32)
        torch.testing.assert_close(out["advantages"].float(), expected, rtol=1e-5, atol=1e-6)
        assert loss_rows_match(out, losses) == 2 * G  # the loss used exactly these advantages


def test_an_outcome_estimator_with_a_per_turn_field_is_refused_at_start_up(any_tokenizer, tmp_path):
    with pytest.raises(ConfigError, match="set estimator_options.reward=sum"):
        _trainer(any_tokenizer, tmp_path, {"estimator": "rloo", **FIELD}, cls_of=lambda base: base, tools=None,
                 rollout_func=stepped_rollout)


def test_a_completion_without_its_per_turn_rewards_is_named(any_tokenizer, tmp_path):
    from datasets import Dataset

    def without(prompts, trainer):
        out = stepped_rollout(prompts, trainer)
        del out["turn_rewards"]
        return out

    data = Dataset.from_list([{"prompt": p} for p in ["Open the red door.", "Open the blue door."]])
    trainer = _trainer(any_tokenizer, tmp_path, {"estimator": "gigpo", **FIELD}, cls_of=lambda base: base,
                       tools=None, rollout_func=without, data=data)
    with pytest.raises(ValueError, match="step_rewards.field=turn_rewards: completion 0 has no list 'turn_rewards'"):
        trainer.train()


def test_per_turn_rewards_the_config_does_not_read_are_refused(any_tokenizer, tmp_path):
    """A rollout_func returns turn_rewards, but the config names no step_rewards.field: refused, not ignored."""
    from datasets import Dataset

    data = Dataset.from_list([{"prompt": p} for p in ["Open the red door.", "Open the blue door."]])
    trainer = _trainer(any_tokenizer, tmp_path, {"estimator": "gigpo"}, cls_of=lambda base: base, tools=None,
                       rollout_func=stepped_rollout, data=data)
    with pytest.raises(ConfigError, match=r"carries per-turn rewards \('turn_rewards'\) .* step_rewards: "
                                          r"\{field: turn_rewards\}"):
        trainer.train()
