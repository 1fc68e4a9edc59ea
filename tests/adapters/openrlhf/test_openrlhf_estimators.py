"""GiGPO and RLOO inside OpenRLHF: OpenRLHF's real agent executor (planshape's TravelPlanner agent), samples
generator and ``train_step`` into the wrapped ``compute_advantages_and_returns``, as test_openrlhf_advantages.py;
the advantages equal plain loops of the estimators' equations (``tests/paper_reference.py``), token for token.
GiGPO's anchor states are the tool calls made before each turn, read from the turns' ``<tool_call>`` blocks."""

from __future__ import annotations

import pytest
import torch
from conftest import write_config
from planshape.shaping.facade import ConfigError
from test_openrlhf_advantages import N, hooked, make_trainer, rollout_samples, scripts, trainer_args
from test_openrlhf_tools import FLIGHTS, HOTELS

__all__ = ["hooked", "rollout_samples", "scripts"]  # fixtures of test_openrlhf_advantages.py, used here


from paper_reference_by_path import reference as _reference

CALL = {FLIGHTS: ("search_flights", "Harborview", "Lindenfield"), HOTELS: ("search_accommodations", "Lindenfield")}


@pytest.fixture(params=["gigpo", "rloo"])
def curriculum_config(tmp_path, request) -> str:
    """The job's planshape config (``hooked`` reads it), with the estimator under test."""
    return write_config(tmp_path / "planshape.json", estimator=request.param)


def _expected(shaper, scripts, responses, step):
    """The reference, from masks built from the executor's action ranges (shifted as OpenRLHF aligns them with
    next-token log-probs), the scripted final turns' rewards at ``step``, and the calls each turn was made after."""
    width = max(len(r["observation_tokens"]) - 1 for r in responses)
    mask = [[0] * width for _ in responses]
    for row, response in enumerate(responses):
        for start, end in response["action_ranges"]:
            mask[row][start - 1:end - 1] = [1] * (end - start)
    rewards = [s.reward for s in shaper.score_batch([t[-1] for t, _ in scripts], [q for _, q in scripts], step)]
    lengths = [[end - start for start, end in _reference.runs(row)] for row in mask]
    groups = [i // N for i in range(len(scripts))]
    if shaper.config.estimator == "rloo":
        per_turn = _reference.rloo_reference(groups, rewards, lengths)
    else:
        states = [[tuple(CALL[t] for t in turns[:k]) for k in range(len(turns))] for turns, _ in scripts]
        per_turn = _reference.gigpo_reference(groups, rewards, lengths, states)
    return torch.tensor(_reference.token_reference(mask, per_turn), dtype=torch.float32)


def test_train_step_writes_the_references_advantages(hooked, scripts, rollout_samples, tokenizer, tmp_path):
    responses, samples = rollout_samples
    trainer = make_trainer(trainer_args(tmp_path), tokenizer)
    trainer.train_step(samples, 120)
    expected = _expected(hooked, scripts, responses, 120)
    seen = 0
    for exp in trainer.actor_model_group.appended:
        width = exp.action_mask.shape[1]
        for row, index in enumerate(exp.index):
            torch.testing.assert_close(exp.advantages[row], expected[index, :width], rtol=1e-5, atol=1e-6)
            seen += 1
        assert exp.info["planshape/alpha"].tolist() == [1.0 if hooked.config.estimator == "gigpo" else 0.0] * len(
            exp.index)
    assert seen == len(scripts) and expected.abs().sum() > 0


def test_gigpo_over_state_ids_is_refused_at_start_up(tmp_path, monkeypatch, tokenizer):
    from planshape.adapters.openrlhf import CONFIG_ENV, SETUP_HOOK
    from planshape.adapters.openrlhf.advantages import patch_openrlhf
    from planshape.adapters.openrlhf.config import RAY_SETUP_HOOK_ENV

    config = write_config(tmp_path / "state.json", estimator="gigpo", anchor={"by": "state"})
    monkeypatch.setenv(CONFIG_ENV, config)
    monkeypatch.setenv(RAY_SETUP_HOOK_ENV, SETUP_HOOK)
    patch_openrlhf()
    with pytest.raises(ConfigError, match="OpenRLHF 0.11 hands the trainer no per-turn state id"):
        make_trainer(trainer_args(tmp_path), tokenizer)
