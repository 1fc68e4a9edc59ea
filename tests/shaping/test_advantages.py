"""GRPO and PlanPO: a worked example from the paper's definitions, and the invariants as properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.shaping.advantages import Rollouts, grpo, planpo


def test_worked_example_by_hand():
    # Four trajectories of one task, binary rewards R = 10 (the paper's setting).
    r = Rollouts.build(["x"] * 4, [10, 10, 0, 0], [True, True, False, False],
                       [[10, 20], [10, 10, 10, 10], [5, 5, 5], [8]])
    out = planpo(r, alpha=0.1, grouping="task")
    # R^E = R/T for successes, 0 for failures: [5, 2.5, 0, 0]; mean 1.875; unbiased std sqrt(17.1875/3).
    std_e = math.sqrt(17.1875 / 3)
    expected_e = np.array([3.125, 0.625, -1.875, -1.875]) / (std_e + 1e-6)
    np.testing.assert_allclose(out.trajectory, expected_e, rtol=1e-9)
    # A^S ("task" grouping): R^S = 10/L over the six successful turns: [1, .5, 1, 1, 1, 1];
    # mean 11/12, unbiased std sqrt(0.208333/5); failures' turns get 0.
    mean_s, std_s = 11 / 12, math.sqrt((5 * (1 / 12) ** 2 + (5 / 12) ** 2) / 5)
    expected_s = np.array([1 - mean_s, 0.5 - mean_s, *[1 - mean_s] * 4]) / (std_s + 1e-6)
    np.testing.assert_allclose(out.turn, [*expected_s, 0, 0, 0, 0], rtol=1e-9)
    np.testing.assert_allclose(out.per_turn, expected_e[r.owner] + 0.1 * out.turn, rtol=1e-12)


def test_grpo_matches_verl_conventions():
    r = Rollouts.build(["a", "a", "a", "b"], [1.0, 2.0, 6.0, 4.0], [False] * 4, [[1], [2, 2], [3], [4]])
    out = grpo(r)
    std = np.std([1.0, 2.0, 6.0], ddof=1)
    np.testing.assert_allclose(out.trajectory[:3], (np.array([1, 2, 6]) - 3.0) / (std + 1e-6))
    assert out.trajectory[3] == pytest.approx(4.0 / (1 + 1e-6))  # a group of one: mean 0, std 1 (as VERL)
    np.testing.assert_allclose(out.per_turn, out.trajectory[r.owner])
    np.testing.assert_allclose(grpo(r, norm_by_std=False).trajectory[:3], [-2, -1, 3])


def test_turn_cap_credits_failures_without_rewarding_brevity():
    # Shaped rewards: two failures with the same partial credit, one short and one long.
    r = Rollouts.build(["g"] * 3, [5.0, 3.0, 3.0], [True, False, False], [[10] * 4, [10], [10] * 9])
    paper = planpo(r)
    assert paper.trajectory[1] == paper.trajectory[2]  # the paper: failures get R^E = 0, both equal
    capped = planpo(r, failure_credit="turn-cap", turn_cap=30)
    assert capped.trajectory[1] == capped.trajectory[2]  # not credited for being short
    assert capped.trajectory[0] > capped.trajectory[1]
    with pytest.raises(ValueError, match="turn_cap"):
        planpo(r, failure_credit="turn-cap", turn_cap=5)


def test_per_index_groupings_depend_on_other_trajectories_stopping_turns():
    """verl RFC #7244: with per-index groups the baseline of turn t depends on who is still active at t.

    Trajectory 0's turns are identical in both batches; only trajectory 2 stops earlier in the second.
    """
    lengths_long = [[10, 10, 40], [20, 20, 20], [10, 10, 10]]
    lengths_short = [[10, 10, 40], [20, 20, 20], [10, 10]]
    make = lambda lengths: Rollouts.build(["g"] * 3, [10] * 3, [True] * 3, lengths)  # noqa: E731
    for grouping, depends in (("index", True), ("index-success", True)):
        a = planpo(make(lengths_long), grouping=grouping).turn[2]
        b = planpo(make(lengths_short), grouping=grouping).turn[2]
        assert bool(a != b) is depends, grouping


def test_bad_options_fail_with_message():
    r = Rollouts.build(["g"], [1.0], [True], [[3]])
    with pytest.raises(ValueError, match="grouping"):
        planpo(r, grouping="turns")
    with pytest.raises(ValueError, match="norm"):
        planpo(r, norm="l2")
    with pytest.raises(ValueError, match="turns add up"):
        Rollouts(np.zeros(1, int), np.ones(1), np.ones(1, bool), np.array([2]), np.array([3]))


# ---------------------------------------------------------------- invariants


@st.composite
def batches(draw, binary=True):
    n_groups = draw(st.integers(1, 4))
    group, reward, success, lengths = [], [], [], []
    for g in range(n_groups):
        for _ in range(draw(st.integers(1, 6))):
            ok = draw(st.booleans())
            group.append(g)
            success.append(ok)
            if binary:
                reward.append(10.0 if ok else 0.0)
            else:  # shaped: a success scores the maximum, a failure partial credit below it
                reward.append(5.0 if ok else draw(st.floats(0, 4.9)))
            lengths.append(draw(st.lists(st.integers(1, 200), min_size=1, max_size=8)))
    return Rollouts.build(group, reward, success, lengths)


def _paper_ae(r: Rollouts) -> np.ndarray:
    """Eq. (2)-(3) straight from the definitions, one group at a time (the test's oracle)."""
    out = np.zeros(len(r.reward))
    for g in set(r.group.tolist()):
        idx = np.flatnonzero(r.group == g)
        re = np.array([r.reward[i] / r.turns[i] if r.success[i] else 0.0 for i in idx])
        if len(idx) > 1:
            out[idx] = (re - re.mean()) / (re.std(ddof=1) + 1e-6)
    return out


PROPS = settings(max_examples=200, deadline=None)


@PROPS
@given(batches())
def test_binary_rewards_ae_is_the_paper_formula(r):
    np.testing.assert_allclose(planpo(r).trajectory, _paper_ae(r), rtol=1e-9, atol=1e-12)


@PROPS
@given(batches(binary=False), st.sampled_from(["none", "turn-cap"]))
def test_failure_never_beats_success_in_its_group(r, credit):
    ae = planpo(r, failure_credit=credit, turn_cap=8).trajectory
    for g in set(r.group.tolist()):
        wins = ae[(r.group == g) & r.success]
        losses = ae[(r.group == g) & ~r.success]
        if len(wins) and len(losses):
            assert losses.max() <= wins.min() + 1e-12


@PROPS
@given(batches())
def test_fewer_turns_never_less_ae_among_successes(r):
    ae = planpo(r).trajectory
    for i in np.flatnonzero(r.success):
        for j in np.flatnonzero(r.success & (r.group == r.group[i])):
            if r.turns[i] < r.turns[j]:
                assert ae[i] >= ae[j] - 1e-12


@PROPS
@given(st.integers(2, 8), st.booleans(), st.lists(st.integers(1, 50), min_size=1, max_size=6),
       st.sampled_from(["index", "index-success"]))
def test_identical_trajectories_get_zero(n, ok, lengths, grouping):
    r = Rollouts.build(["g"] * n, [10.0 if ok else 0.0] * n, [ok] * n, [lengths] * n)
    for out in (planpo(r, grouping=grouping), grpo(r)):
        np.testing.assert_allclose(out.per_turn, 0.0, atol=1e-9)


def test_task_grouping_ranks_turns_within_identical_trajectories():
    """Documented behaviour of the "task" reading, and why it is not the default."""
    r = Rollouts.build(["g"] * 2, [10.0] * 2, [True] * 2, [[10, 200]] * 2)
    a_s = planpo(r, grouping="task").turn
    assert a_s[0] > 0 > a_s[1]  # the long (final-answer) turn is penalised although no trajectory is better
    assert np.all(planpo(r).turn == 0)


def test_index_grouping_leaks_success_into_the_length_term():
    r = Rollouts.build(["g"] * 2, [10.0, 0.0], [True, False], [[10, 10], [10, 10]])
    assert np.all(planpo(r, grouping="index").turn[:2] > 0)  # same lengths, yet A^S > 0 for the success
    assert np.all(planpo(r).turn == 0)


@PROPS
@given(batches(), st.sampled_from(["task", "index-success"]))
def test_single_success_and_all_fail_groups_get_zero_as(r, grouping):
    a_s = planpo(r, grouping=grouping).turn
    for g in set(r.group.tolist()):
        if int(np.sum(r.success & (r.group == g))) <= 1:
            assert np.all(a_s[r.group[r.owner] == g] == 0.0)


@PROPS
@given(batches())
def test_all_fail_groups_get_zero_as_under_every_grouping(r):
    for grouping in ("task", "index", "index-success"):
        a_s = planpo(r, grouping=grouping).turn
        for g in set(r.group.tolist()):
            if not np.any(r.success & (r.group == g)):
                assert np.all(a_s[r.group[r.owner] == g] == 0.0)
