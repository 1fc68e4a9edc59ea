"""What a trainer hands the estimators: every malformed field is a ValueError naming it, or a correct number."""

import math
import resource
import time

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from planshape.shaping.advantages import Rollouts, grpo, planpo, segment_normalise
from planshape.shaping.advantages.tokens import token_advantages

from .test_advantages import batches


def test_tuple_group_ids_are_one_group_each():
    groups = [("task", 1), ("task", 1), ("task", 2), ("task", 2)]
    r = Rollouts.build(groups, [1.0, 3.0, 5.0, 9.0], [True] * 4, [[5], [5, 5], [5], [5]])
    assert r.group.tolist() == [0, 0, 1, 1]
    same = Rollouts.build(["a", "a", "b", "b"], [1.0, 3.0, 5.0, 9.0], [True] * 4, [[5], [5, 5], [5], [5]])
    for estimator in (grpo, planpo):
        np.testing.assert_array_equal(estimator(r).per_turn, estimator(same).per_turn)


def test_group_ids_from_a_tensor_or_array_and_unhashable_ids():
    rows = dict(reward=[1.0, 2.0, 4.0], success=[True] * 3, turn_lengths=[[1]] * 3)
    for ids in (torch.tensor([7, 7, 9]), np.array([7, 7, 9]), np.array(["x", "x", "y"], dtype=object)):
        assert Rollouts.build(ids, **rows).group.tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="group ids must be hashable"):
        Rollouts.build([[1], [1], [2]], **rows)
    with pytest.raises(ValueError, match="1-D"):
        Rollouts.build(np.zeros((3, 2)), **rows)


@pytest.mark.parametrize(("lengths", "message"), [
    ([[5], [2**70]], r"turn_lengths\[1\]\[0\] is 1180591620717411303424"),
    ([[5, 1.7]], r"turn_lengths\[0\]\[1\] is 1.7"),
    ([[5], [], [float("nan")]], r"turn_lengths\[2\]\[0\] is nan"),
    ([[0]], r"turn_lengths\[0\]\[0\] is 0"),
    ([[True]], r"turn_lengths\[0\]\[0\] is True"),
    ([["3"]], r"turn_lengths\[0\]\[0\] is '3'"),
    ([[3], 4], r"turn_lengths\[1\] must be a list of token counts"),
])
def test_turn_lengths_are_whole_token_counts(lengths, message):
    n = len(lengths)
    with pytest.raises(ValueError, match=message):
        Rollouts.build(list(range(n)), [1.0] * n, [True] * n, lengths)


def test_integral_float_lengths_are_accepted():
    assert Rollouts.build(["g"], [1.0], [True], [[2.0, 3]]).lengths.tolist() == [2, 3]


@pytest.mark.parametrize(("success", "message"), [
    (["False", "True"], r"success\[0\] is 'False'"),
    ([True, float("nan")], r"success\[1\] is nan"),
    ([1, 2], r"success\[1\] is 2"),
    ([None, True], r"success\[0\] is None"),
    ([True], "one flag per trajectory"),
])
def test_success_flags_are_booleans(success, message):
    with pytest.raises(ValueError, match=message):
        Rollouts.build(["g", "g"], [1.0, 2.0], success, [[1], [1]])


def test_success_as_zero_one_numbers():
    assert Rollouts.build(["g", "g"], [1.0, 2.0], [1.0, 0], [[1], [1]]).success.tolist() == [True, False]


@pytest.mark.parametrize("reward", [1e154, -1e200, float("inf"), float("nan"), "1.0", None, 10**400])
def test_rewards_that_would_overflow_are_rejected(reward):
    with pytest.raises(ValueError, match=r"reward\[1\]"):
        Rollouts.build(["g", "g"], [1.0, reward], [True, True], [[1], [1]])


def test_large_but_allowed_rewards_give_the_scaled_advantages():
    r = Rollouts.build(["g"] * 3, [1e99, 2e99, 4e99], [False] * 3, [[1]] * 3)
    small = Rollouts.build(["g"] * 3, [1.0, 2.0, 4.0], [False] * 3, [[1]] * 3)
    np.testing.assert_allclose(grpo(r, eps=1e-300).trajectory, grpo(small, eps=1e-300).trajectory, rtol=1e-12)


@pytest.mark.parametrize(("option", "value"), [("alpha", math.nan), ("alpha", math.inf), ("eps", 0.0),
                                               ("eps", -1e-6), ("eps", math.nan), ("alpha", "0.1x")])
def test_estimator_options_are_checked(option, value):
    r = Rollouts.build(["g"] * 2, [1.0, 1.0], [True, True], [[1], [1]])
    with pytest.raises(ValueError, match=option):
        planpo(r, **{option: value})
    if option == "eps":
        with pytest.raises(ValueError, match="eps"):
            grpo(r, eps=value)


def test_turn_cap_must_be_a_finite_number():
    r = Rollouts.build(["g"] * 2, [1.0, 0.5], [True, False], [[1], [1]])
    for cap in (math.nan, None, 0):
        with pytest.raises(ValueError, match="turn_cap"):
            planpo(r, failure_credit="turn-cap", turn_cap=cap)


def test_direct_construction_is_checked_too():
    with pytest.raises(ValueError, match="lengths"):
        Rollouts(np.zeros(1, int), np.ones(1), np.ones(1, bool), np.array([1]), np.array([1.5]))
    with pytest.raises(ValueError, match="success"):
        Rollouts(np.zeros(1, int), np.ones(1), np.array(["no"]), np.array([1]), np.array([1]))
    sparse = Rollouts(np.array([5, 10**12]), np.ones(2), np.ones(2, bool), np.array([1, 1]), np.array([1, 1]))
    assert sparse.n_groups == 2  # no array sized by the largest code


def test_token_advantages_rejects_string_success():
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match="success"):
        token_advantages(torch.tensor([1.0, 0.0]), mask, ["g", "g"], planpo, success=np.array(["False", "True"]))


# ------------------------------------------------------------------ PlanPO's per-index segments are compact


def _planpo_wide(r: Rollouts, grouping: str, alpha=0.1, eps=1e-6) -> np.ndarray:
    """A^S with the former segment codes, group x (longest trajectory): the oracle for the compact codes."""
    ok = r.success & (r.turns > 0)
    t = np.arange(len(r.lengths)) - np.repeat(np.cumsum(r.turns) - r.turns, r.turns)  # turn index in its trajectory
    width = int(t.max(initial=0)) + 1
    segment = r.group[r.owner] * width + t
    member = ok[r.owner] if grouping == "index-success" else np.ones(len(t), dtype=bool)
    rs = np.where(ok[r.owner], r.reward[r.owner] / r.lengths, 0.0)
    return segment_normalise(rs, segment, member, r.n_groups * width, True, eps)


@settings(max_examples=200, deadline=None)
@given(batches(binary=False))
def test_compact_segments_give_identical_results(r):
    for grouping in ("index", "index-success"):
        assert np.array_equal(planpo(r, grouping=grouping).turn, _planpo_wide(r, grouping))


def test_many_groups_and_one_long_trajectory_stay_small_and_fast():
    groups = 3000
    group = np.repeat(np.arange(groups), 2)
    lengths = [[3]] * (2 * groups - 1) + [[2] * 20_000]
    r = Rollouts.build(group, np.linspace(0, 1, 2 * groups), [True] * (2 * groups), lengths)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.thread_time()
    out = planpo(r)
    seconds = time.thread_time() - start
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert seconds < 0.5 and grown_mb < 200, (seconds, grown_mb)  # was 5.5 s and 2.3 GB
    assert np.all(np.isfinite(out.per_turn)) and len(out.per_turn) == len(r.lengths)


def test_tensors_are_accepted_for_every_per_trajectory_field():
    r = Rollouts.build(torch.tensor([1, 1]), torch.tensor([1.0, 3.0]), torch.tensor([True, False]), [[2], [3]])
    assert r.group.tolist() == [0, 0] and r.reward.tolist() == [1.0, 3.0] and r.success.tolist() == [True, False]


def test_the_facade_refuses_text_success_flags():
    from planshape.shaping.facade import Shaper

    shaper = Shaper.from_mapping({"database": "sample", "total_steps": 100})
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match=r"success\[0\] is 'False'"):
        shaper.advantages(torch.tensor([1.0, 0.0]), mask, ["g", "g"], step=0, success=["False", "True"])
    out = shaper.advantages(torch.tensor([1.0, 0.0]), mask, ["g", "g"], step=0, success=[1, 0])
    assert out.success.tolist() == [True, False]
