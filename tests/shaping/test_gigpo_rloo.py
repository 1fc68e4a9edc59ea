"""GiGPO and RLOO: equal to plain loops of their equations (``tests/paper_reference.py``) on generated batches,
through the facade in both batch layouts, with the same input checks as PlanPO; and the TravelPlanner anchor key."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.shaping.advantages import Rollouts, gigpo, planpo, rloo
from planshape.shaping.facade import ConfigError, Shaper, tool_call_anchors

from ..paper_reference import gigpo_reference, planpo_reference, rloo_reference, token_reference

PROPS = settings(max_examples=150, deadline=None)


@st.composite
def trajectories(draw, max_groups: int = 3):
    """(group, reward, turn lengths, anchor per turn): anchors drawn from a few states, so step groups form."""
    out = []
    for g in range(draw(st.integers(1, max_groups))):
        for _ in range(draw(st.integers(1, 6))):
            lengths = draw(st.lists(st.integers(1, 9), min_size=1, max_size=5))
            anchors = [f"s{draw(st.integers(0, 3))}" for _ in lengths]
            reward = draw(st.sampled_from([0.0, 10.0, 2.5, -1.0]))
            out.append((g, reward, lengths, anchors))
    return out


def _columns(batch):
    return ([b[0] for b in batch], [b[1] for b in batch], [b[2] for b in batch], [b[3] for b in batch])


@PROPS
@given(trajectories(), st.sampled_from([1.0, 0.5]), st.sampled_from([0.95, 1.0, 0.0]),
       st.sampled_from(["std", "none"]))
def test_gigpo_equals_its_equations(batch, omega, gamma, norm):
    groups, rewards, lengths, anchors = _columns(batch)
    r = Rollouts.build(groups, rewards, [False] * len(rewards), lengths, anchors)
    got = gigpo(r, omega=omega, gamma=gamma, norm=norm).per_turn
    want = gigpo_reference(groups, rewards, lengths, anchors, omega, gamma, use_std=norm == "std")
    np.testing.assert_allclose(got, [x for row in want for x in row], rtol=1e-9, atol=1e-9)


@PROPS
@given(trajectories())
def test_rloo_equals_its_equation(batch):
    groups, rewards, lengths, _ = _columns(batch)
    got = rloo(Rollouts.build(groups, rewards, [False] * len(rewards), lengths)).per_turn
    np.testing.assert_allclose(got, [x for row in rloo_reference(groups, rewards, lengths) for x in row],
                               rtol=1e-12, atol=1e-12)


@PROPS
@given(trajectories(), st.sampled_from(["index-success", "index-final", "index", "task"]))
def test_planpo_equals_the_reference_under_every_grouping(batch, grouping):
    groups, rewards, lengths, _ = _columns(batch)
    success = [x == 10.0 for x in rewards]
    got = planpo(Rollouts.build(groups, rewards, success, lengths), alpha=0.3, grouping=grouping).per_turn
    want = planpo_reference(groups, rewards, success, lengths, 0.3, grouping=grouping)
    np.testing.assert_allclose(got, [x for row in want for x in row], rtol=1e-9, atol=1e-9)


def test_gigpo_by_hand():
    """Two trajectories share their first state; the second's long detour gets less of the discounted return."""
    r = Rollouts.build(["q"] * 3, [10.0, 10.0, 0.0], [False] * 3, [[4, 4], [4, 4, 4], [4]],
                       [["start", "found"], ["start", "lost", "found"], ["start"]])
    out = gigpo(r, gamma=0.5, norm="none")
    np.testing.assert_allclose(out.trajectory, [10 / 3, 10 / 3, -20 / 3])
    start = np.array([5.0, 2.5, 0.0])  # gamma^(T-1) R at the shared first state
    found = np.array([10.0, 10.0])  # both end right after "found": no difference
    np.testing.assert_allclose(out.turn, [start[0] - start.mean(), found[0] - found.mean(), start[1] - start.mean(),
                                          0.0, found[1] - found.mean(), start[2] - start.mean()], atol=1e-12)


def test_rloo_counts_each_trajectory_once_in_row_per_turn_batches():
    """A 3-turn trajectory split over 3 rows is one sample of its peers' baselines, as in one row."""
    shaper = Shaper.from_mapping({"estimator": "rloo"})
    whole = shaper.advantages([10.0, 0.0, 4.0], torch.tensor([[1, 0, 1, 0, 1], [1, 0, 0, 0, 0], [1, 1, 0, 0, 0]]),
                              ["g"] * 3, 0)
    np.testing.assert_allclose(whole.per_trajectory, [10 - 2, 0 - 7, 4 - 5])
    mask = torch.tensor([[1, 0], [1, 0], [1, 0], [1, 0], [1, 1]])
    split = shaper.advantages([0.0, 0.0, 10.0, 0.0, 4.0], mask, ["g"] * 5, 0,
                              trajectory=["a", "a", "a", "b", "c"], turn_order=[0, 1, 2, 0, 0])
    np.testing.assert_allclose(split.tokens[:, 0].numpy(), [8, 8, 8, -7, -1])
    assert split.stats == pytest.approx(whole.stats)


TURNS = [[3, 2, 4], [2, 5], [4], [1, 1, 1, 1], [6, 2], [2, 2, 2], [3], [2, 2, 2, 2, 2]]
GROUPS = ["a"] * 4 + ["b"] * 4
REWARDS = [10.0, 10.0, 0.0, 10.0, 0.0, 10.0, 10.0, 0.0]
ANCHORS = [["s0", "s1", "s2"], ["s0", "s2"], ["s0"], ["s0", "s1", "s1", "s2"], ["s0", "s3"], ["s0", "s3", "s1"],
           ["s0"], ["s0", "s1", "s3", "s1", "s2"]]


def _row(lengths: list[int], width: int = 24) -> list[int]:
    row: list[int] = []
    for n in lengths:
        row += [1] * n + [0, 0]
    return row + [0] * (width - len(row))


@pytest.mark.parametrize("layout", ["row per trajectory", "row per turn"])
def test_gigpo_through_the_facade_equals_the_reference_token_for_token(layout):
    shaper = Shaper.from_mapping({"estimator": "gigpo", "estimator_options": {"gamma": 0.9}})
    want = gigpo_reference(GROUPS, REWARDS, TURNS, ANCHORS, gamma=0.9)
    if layout == "row per trajectory":
        mask = [_row(t) for t in TURNS]
        out = shaper.advantages(REWARDS, torch.tensor(mask), GROUPS, 3, anchors=ANCHORS)
        torch.testing.assert_close(out.tokens, torch.tensor(token_reference(mask, want), dtype=torch.float32))
    else:
        rows = [(i, k) for i, t in enumerate(TURNS) for k in range(len(t))][::-1]  # reordered, as trainers do
        mask = torch.tensor([_row([TURNS[i][k]], 8) for i, k in rows])
        scores = [REWARDS[i] if k == len(TURNS[i]) - 1 else 0.0 for i, k in rows]
        out = shaper.advantages(scores, mask, [GROUPS[i] for i, _ in rows], 3, trajectory=[i for i, _ in rows],
                                turn_order=[k for _, k in rows], anchors=[[ANCHORS[i][k]] for i, k in rows])
        for row, (i, k) in enumerate(rows):
            n = TURNS[i][k]
            torch.testing.assert_close(out.tokens[row, :n], torch.full((n,), want[i][k], dtype=torch.float32))
    assert out.stats["planshape/alpha"] == 1.0  # ω, the weight of the step term
    assert out.stats["planshape/adv_s_std"] > 0


def test_estimators_without_anchors_ignore_them_and_gigpo_asks_for_them():
    mask = torch.tensor([_row(t) for t in TURNS])
    for name in ("grpo", "rloo"):
        shaper = Shaper.from_mapping({"estimator": name})
        assert not shaper.uses_anchors
        with_anchors = shaper.advantages(REWARDS, mask, GROUPS, 0, anchors=ANCHORS)
        assert torch.equal(with_anchors.tokens, shaper.advantages(REWARDS, mask, GROUPS, 0).tokens)
    shaper = Shaper.from_mapping({"estimator": "gigpo"})
    assert shaper.uses_anchors and shaper.config.anchor_key == "state"
    with pytest.raises(ValueError, match="gigpo groups steps by anchor state"):
        shaper.advantages(REWARDS, mask, GROUPS, 0)


@pytest.mark.parametrize(("anchors", "message"), [
    (ANCHORS[:-1], r"one list of state ids per trajectory \(8\)"),
    ([*ANCHORS[:-1], ["s0"]], r"anchors\[7\] holds 1 state ids for 5 turns"),
    ([*ANCHORS[:-1], "s0s1s2s3s4"], r"anchors\[7\] must be a list"),
    ([*ANCHORS[:-1], [["x"], "s1", "s2", "s3", "s4"]], "must be hashable"),
])
def test_bad_anchors_name_the_row(anchors, message):
    shaper = Shaper.from_mapping({"estimator": "gigpo"})
    with pytest.raises(ValueError, match=message):
        shaper.advantages(REWARDS, torch.tensor([_row(t) for t in TURNS]), GROUPS, 0, anchors=anchors)


@pytest.mark.parametrize(("options", "message"), [
    ({"gamma": 1.5}, r"gamma must be in \[0, 1\]"), ({"omega": float("nan")}, "omega must be finite"),
    ({"norm": "l2"}, "unknown GiGPO norm"), ({"eps": 0}, "eps must be > 0"), ({"turns": 3}, "unknown option"),
])
def test_gigpo_options_are_checked_at_start_up(options, message):
    with pytest.raises(ConfigError, match=message):
        Shaper.from_mapping({"estimator": "gigpo", "estimator_options": options})
    with pytest.raises(ConfigError, match="unknown option"):
        Shaper.from_mapping({"estimator": "rloo", "estimator_options": {"eps": 1e-6}})


def test_the_same_input_checks_as_planpo():
    """The checks live in ``Rollouts``: every estimator gets them (a bad reward, length or group is refused)."""
    for fn in (gigpo, rloo):
        with pytest.raises(ValueError, match=r"reward\[0\] is nan"):
            fn(Rollouts.build(["g"], [float("nan")], [False], [[3]], [["s"]]))
        with pytest.raises(ValueError, match=r"turn_lengths\[0\]\[1\] is 0"):
            fn(Rollouts.build(["g"], [1.0], [False], [[3, 0]], [["s", "t"]]))
    with pytest.raises(ValueError, match="anchor must hold one state code per turn"):
        Rollouts(np.zeros(1, int), np.ones(1), np.zeros(1, bool), np.array([2]), np.array([3, 3]), np.array([0]))


def _call(name: str, **arguments) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def test_tool_call_anchors_are_the_calls_so_far():
    flight = _call("search_flights", origin="A", destination="B", date="2022-03-16")
    a = tool_call_anchors([_call("get_cities", state="Texas"), flight, '{"answer": 1}'])
    # the same calls (argument order and the text around them aside): the same states
    b = tool_call_anchors([f"thinking... {_call('get_cities', state='Texas')}",
                                  '<tool_call>{"arguments": {"date": "2022-03-16", "destination": "B", "origin": "A"},'
                                  ' "name": "search_flights"}</tool_call>', "a longer final answer"])
    c = tool_call_anchors([_call("get_cities", state="Ohio"), "done"])
    assert a == b and len(set(a)) == 3
    assert c[0] == a[0] and c[1] != a[1]  # every trajectory starts in the prompt's state
    # model text never raises: unclosed blocks, bad JSON, non-text turns
    assert len(tool_call_anchors(["<tool_call>{", "<tool_call>not json</tool_call>", None, 7])) == 4
    # a block that is no call runs no tool: the state after it is the state before it
    bad = tool_call_anchors(["<tool_call>not json</tool_call>", '<tool_call>{"arguments": {}}</tool_call>', "x"])
    assert len(set(bad)) == 1


def test_tool_call_anchors_are_equal_across_processes():
    import subprocess
    import sys

    code = ("from planshape.shaping.facade import tool_call_anchors; "
            "print(tool_call_anchors(['<tool_call>{\"name\": \"x\", \"arguments\": {}}</tool_call>', 'y']))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outs) == 1


def test_tool_call_anchors_make_gigpo_step_groups():
    texts = [[_call("get_cities", state="Texas"), "plan A"], [_call("get_cities", state="Texas"), "plan B"],
             [_call("get_cities", state="Ohio"), "plan C"]]
    lengths = [[5, 40], [5, 60], [5, 50]]
    anchors = [tool_call_anchors(t) for t in texts]
    r = Rollouts.build(["q"] * 3, [10.0, 0.0, 10.0], [False] * 3, lengths, anchors)
    out = gigpo(r, norm="none")
    assert out.turn[1] == pytest.approx(5.0) and out.turn[3] == pytest.approx(-5.0)  # same calls, same state
    assert out.turn[5] == 0.0  # Ohio: a state of its own
    flat = [x for row in gigpo_reference(["q"] * 3, [10.0, 0.0, 10.0], lengths, anchors, use_std=False) for x in row]
    np.testing.assert_allclose(out.per_turn, flat)
