"""Estimator-only use (no TravelPlanner), the row-per-turn layout, and the "index-final" turn baseline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.shaping.advantages import Rollouts, planpo
from planshape.shaping.facade import ConfigError, Shaper

from ..paper_reference import planpo_reference, runs, token_reference

ANY_TASK = {"total_steps": 150, "success": {"by": "threshold", "threshold": 10}}


def test_estimator_only_config_asks_only_for_what_the_estimator_needs():
    shaper = Shaper.from_mapping(ANY_TASK)
    assert shaper.estimator_only and shaper.describe()["estimator_only"]
    with pytest.raises(ConfigError, match="no database"):
        shaper.scorer.store  # noqa: B018 - scoring needs a database
    for field, value in (("mode", "official"), ("schedule", "stage2"), ("tools", {"max_chars": 10}),
                         ("workers", 2)):
        with pytest.raises(ConfigError, match=f"{field}: set without a database"):
            Shaper.from_mapping({**ANY_TASK, field: value})
    with pytest.raises(ConfigError, match="no TravelPlanner final pass"):
        Shaper.from_mapping({"total_steps": 150})
    Shaper.from_mapping({"estimator": "grpo"})  # GRPO needs neither success nor α horizon
    with pytest.raises(ConfigError, match="give 'flag'"):
        Shaper.from_mapping({"total_steps": 5, "success": {"by": "flag"}})


def test_success_flags_come_from_the_trainer_and_are_checked():
    shaper = Shaper.from_mapping({"total_steps": 5, "success": {"by": "flag", "flag": "acc"}})
    mask = torch.tensor([[1, 1, 0, 1], [1, 0, 0, 0]])
    with pytest.raises(ValueError, match="pass the trainer's per-sample 'acc' flags"):
        shaper.advantages([3.0, 0.0], mask, ["g", "g"], 0)
    with pytest.raises(ValueError, match=r"success\[0\] is 0.5"):
        shaper.success_of(np.array([3.0, 0.0]), 0, np.array([0.5, 0.0]))
    out = shaper.advantages([3.0, 0.0], mask, ["g", "g"], 0, success=[1, 0])
    assert out.success.tolist() == [True, False]


TURNS = [[3, 2, 4], [2, 5], [4], [1, 1, 1, 1], [6, 2], [2, 2, 2], [3], [2, 2, 2, 2, 2]]
GROUPS = ["a"] * 4 + ["b"] * 4
REWARDS = [10.0, 10.0, 0.0, 10.0, 0.0, 10.0, 10.0, 0.0]


def _row(lengths: list[int], width: int = 24) -> list[int]:
    row: list[int] = []
    for n in lengths:
        row += [1] * n + [0, 0]
    return row + [0] * (width - len(row))


def test_estimator_only_equals_the_papers_equations():
    shaper = Shaper.from_mapping(ANY_TASK)
    mask = [_row(t) for t in TURNS]
    out = shaper.advantages(REWARDS, torch.tensor(mask), GROUPS, 30)
    per_turn = planpo_reference(GROUPS, REWARDS, [r == 10 for r in REWARDS], TURNS, alpha=0.09)
    torch.testing.assert_close(out.tokens, torch.tensor(token_reference(mask, per_turn), dtype=torch.float32))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans(), st.lists(st.integers(1, 4), min_size=1, max_size=5)),
                min_size=1, max_size=10), st.randoms(use_true_random=False))
def test_row_per_turn_equals_row_per_trajectory(trajectories, rng):
    """Rows of one turn each, shuffled (trainers reorder rows), carrying the trajectory id, the group id, the
    outcome on the final row only, and the turn order: the same advantages and the same statistics."""
    shaper = Shaper.from_mapping(ANY_TASK)
    width = 2 + 3 * max(len(t) for _, _, t in trajectories) * 4
    groups = [g for g, _, _ in trajectories]
    rewards = [10.0 if ok else 0.0 for _, ok, _ in trajectories]
    whole = shaper.advantages(rewards, torch.tensor([_row(t, width) for _, _, t in trajectories]), groups, 7)
    rows = [(i, k, n) for i, (_, _, t) in enumerate(trajectories) for k, n in enumerate(t)]
    rng.shuffle(rows)
    mask = torch.tensor([_row([n], 6) for _, _, n in rows])
    scores = [rewards[i] if k == len(trajectories[i][2]) - 1 else 0.0 for i, k, _ in rows]
    split = shaper.advantages(scores, mask, [groups[i] for i, _, _ in rows], 7,
                              trajectory=[f"t{i}" for i, _, _ in rows], turn_order=[k for _, k, _ in rows])
    assert split.stats == pytest.approx(whole.stats, abs=1e-12)  # each trajectory counted once, in any order
    for row, (i, k, n) in enumerate(rows):
        start, end = runs(_row(trajectories[i][2], width))[k]
        assert torch.equal(split.tokens[row, :n], whole.tokens[i, start:end])


def test_a_trajectory_in_two_groups_is_refused():
    shaper = Shaper.from_mapping(ANY_TASK)
    with pytest.raises(ValueError, match="different group ids"):
        shaper.advantages([0.0, 10.0], torch.tensor([[1, 0], [1, 0]]), ["a", "b"], 0, trajectory=["t", "t"])


def test_index_final_compares_final_turns_with_final_turns():
    r = Rollouts.build(["g"] * 4, [10, 10, 10, 0], [True, True, True, False], [[10, 20, 40], [10, 50], [20], [5]])
    out = planpo(r, alpha=1.0, grouping="index-final").turn
    finals = np.array([10 / 40, 10 / 50, 10 / 20])
    expected = (finals - finals.mean()) / (finals.std(ddof=1) + 1e-6)
    np.testing.assert_allclose(out[[2, 4, 5]], expected, rtol=1e-9)
    np.testing.assert_allclose(out[[0, 1, 3, 6]], [0, 0, 0, 0])  # index 0: 10 vs 10; index 1 alone; a failure


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans(), st.lists(st.integers(1, 300), min_size=1, max_size=6)),
                min_size=1, max_size=12), st.floats(0.05, 0.95))
def test_index_final_gives_no_push_on_the_turn_count(trajectories, p):
    """With a per-turn continue probability p, a turn followed by another has score 1 - p, a final turn -p. Under
    "index-final" every turn group holds one kind only, so sum(A^S x score) is exactly 0 in every group."""
    r = Rollouts.build([g for g, _, _ in trajectories], [10.0 if ok else 0.0 for _, ok, _ in trajectories],
                       [ok for _, ok, _ in trajectories], [t for _, _, t in trajectories])
    score = np.full(len(r.lengths), 1 - p)
    score[np.cumsum(r.turns) - 1] = -p
    push = np.bincount(r.group[r.owner], weights=planpo(r, grouping="index-final").turn * score)
    np.testing.assert_allclose(push, 0.0, atol=1e-9)


def test_the_simulation_shows_the_push_of_the_papers_readings():
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "turn_count_bias.py"
    done = subprocess.run([sys.executable, str(script), "--groups", "4000"], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "groups per scenario: 4000" in done.stdout and "long final turn" in done.stdout
