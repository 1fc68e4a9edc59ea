"""Per-turn rewards: every estimator equal to a plain loop of its equations (``tests/paper_reference.py``) when
turns carry rewards besides the outcome, through the facade in both batch layouts; verl-agent's conventions
(episode statistics over turns, similarity anchors) equal to theirs; and per-turn rewards an estimator would ignore
refused with the setting to add, never dropped."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.shaping.advantages import Rollouts, gigpo, grpo, planpo, rloo
from planshape.shaping.facade import ConfigError, Shaper, StepRewardsIgnored

from ..paper_reference import (
    gigpo_reference,
    grpo_reference,
    planpo_reference,
    rloo_reference,
    token_reference,
)

PROPS = settings(max_examples=150, deadline=None)
PENALTIES = [0.0, -0.1, 0.5, 1.0]  # a step penalty (ALFWorld-style invalid actions), shaping bonuses


@st.composite
def stepped(draw, max_groups: int = 3, texts: bool = False):
    """(group, outcome, turn lengths, anchor per turn, per-turn reward per turn)."""
    out = []
    for g in range(draw(st.integers(1, max_groups))):
        for _ in range(draw(st.integers(1, 6))):
            lengths = draw(st.lists(st.integers(1, 9), min_size=1, max_size=5))
            if texts:  # observations close to each other: some pairs reach a similarity threshold, some not
                anchors = [draw(st.sampled_from(["you are in the hall", "you are in the hall.", "you are in a hall",
                                                 "the door is open", "the door is open!", "kitchen"]))
                           for _ in lengths]
            else:
                anchors = [f"s{draw(st.integers(0, 3))}" for _ in lengths]
            steps = [draw(st.sampled_from(PENALTIES)) for _ in lengths]
            out.append((g, draw(st.sampled_from([0.0, 10.0, 2.5, -1.0])), lengths, anchors, steps))
    return out


def _columns(batch):
    return tuple([b[k] for b in batch] for k in range(5))


def _flat(per_turn):
    return [x for row in per_turn for x in row]


@PROPS
@given(stepped(), st.sampled_from([1.0, 0.5]), st.sampled_from([0.95, 1.0, 0.0]), st.sampled_from(["std", "none"]),
       st.sampled_from(["trajectories", "turns"]))
def test_gigpo_with_per_turn_rewards_equals_its_equations(batch, omega, gamma, norm, episode_stats):
    groups, rewards, lengths, anchors, steps = _columns(batch)
    r = Rollouts.build(groups, rewards, [False] * len(rewards), lengths, anchors, steps)
    got = gigpo(r, omega=omega, gamma=gamma, norm=norm, episode_stats=episode_stats).per_turn
    want = gigpo_reference(groups, rewards, lengths, anchors, omega, gamma, use_std=norm == "std", step_rewards=steps,
                           episode_stats=episode_stats)
    np.testing.assert_allclose(got, _flat(want), rtol=1e-9, atol=1e-9)


@PROPS
@given(stepped(), st.sampled_from(["outcome", "sum"]), st.sampled_from([True, False]))
def test_grpo_and_rloo_read_the_outcome_or_the_sum(batch, reward, use_std):
    groups, rewards, lengths, _, steps = _columns(batch)
    r = Rollouts.build(groups, rewards, [False] * len(rewards), lengths, step_rewards=steps)
    np.testing.assert_allclose(grpo(r, norm_by_std=use_std, reward=reward).per_turn,
                               _flat(grpo_reference(groups, rewards, lengths, use_std=use_std, step_rewards=steps,
                                                    reward=reward)), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(rloo(r, reward=reward).per_turn,
                               _flat(rloo_reference(groups, rewards, lengths, steps, reward)), rtol=1e-12, atol=1e-12)


@PROPS
@given(stepped(), st.sampled_from(["index-final", "index-success", "index", "task"]),
       st.sampled_from(["outcome", "sum"]))
def test_planpo_reads_the_outcome_or_the_sum(batch, grouping, reward):
    groups, rewards, lengths, _, steps = _columns(batch)
    success = [x == 10.0 for x in rewards]
    r = Rollouts.build(groups, rewards, success, lengths, step_rewards=steps)
    got = planpo(r, alpha=0.3, grouping=grouping, reward=reward).per_turn
    want = planpo_reference(groups, rewards, success, lengths, 0.3, grouping=grouping, step_rewards=steps,
                            reward=reward)
    np.testing.assert_allclose(got, _flat(want), rtol=1e-9, atol=1e-9)


@PROPS
@given(stepped(texts=True), st.sampled_from([0.5, 0.9, 0.95]))
def test_similarity_anchors_equal_their_reference_and_ignore_row_order(batch, threshold):
    groups, rewards, lengths, anchors, steps = _columns(batch)
    shaper = Shaper.from_mapping({"estimator": "gigpo", "anchor": {"similarity": threshold},
                                  "step_rewards": {"field": "turn_rewards"}})
    mask = torch.tensor([_row(t, 60) for t in lengths])
    want = gigpo_reference(groups, rewards, lengths, anchors, step_rewards=steps, similarity=threshold)
    out = shaper.advantages(rewards, mask, groups, 0, anchors=anchors, step_rewards=steps)
    torch.testing.assert_close(out.tokens, torch.tensor(token_reference(mask.tolist(), want), dtype=torch.float32))
    flip = list(range(len(rewards)))[::-1]
    back = shaper.advantages([rewards[i] for i in flip], mask[flip], [groups[i] for i in flip], 0,
                             anchors=[anchors[i] for i in flip], step_rewards=[steps[i] for i in flip])
    torch.testing.assert_close(back.tokens[flip], out.tokens)


def test_the_issues_example_trajectory_and_turn_statistics():
    """A 1-turn R=10 and a 3-turn R=0 trajectory: ±0.707 over trajectories (the paper's Eq. 3), +1.5 and -0.5 over
    turns (verl-agent's default: the 3-turn trajectory counts three times)."""
    r = Rollouts.build(["q", "q"], [10.0, 0.0], [False, False], [[5], [5, 5, 5]], [["a"], ["b", "c", "d"]])
    assert gigpo(r).trajectory == pytest.approx([0.70710678, -0.70710678], abs=1e-6)
    assert gigpo(r, episode_stats="turns").trajectory == pytest.approx([1.5, -0.5], abs=1e-6)


def test_discounted_returns_by_hand():
    """-0.1 on every step, 10 at the end: G_t = sum_k gamma^(k-t) r_k, the step term's input (Eq. 5)."""
    r = Rollouts.build(["q", "q"], [10.0, 0.0], [False, False], [[4, 4, 4], [4, 4]], [["a", "b", "c"], ["a", "b"]],
                       [[-0.1, -0.1, -0.1], [-0.1, -0.1]])
    out = gigpo(r, gamma=0.5, norm="none")
    g1 = [-0.1 + 0.5 * (-0.1 + 0.5 * 9.9), -0.1 + 0.5 * 9.9, 9.9]
    g2 = [-0.1 + 0.5 * -0.1, -0.1]
    assert out.turn[[0, 3]] == pytest.approx([g1[0] - (g1[0] + g2[0]) / 2, g2[0] - (g1[0] + g2[0]) / 2])
    assert out.turn[[1, 4]] == pytest.approx([g1[1] - (g1[1] + g2[1]) / 2, g2[1] - (g1[1] + g2[1]) / 2])
    assert out.trajectory == pytest.approx([9.7 - 4.75, -0.2 - 4.75])  # returns 9.7 and -0.2, mean 4.75


TURNS = [[3, 2, 4], [2, 5], [4], [1, 1, 1, 1], [6, 2], [2, 2, 2], [3], [2, 2, 2, 2, 2]]
GROUPS = ["a"] * 4 + ["b"] * 4
REWARDS = [10.0, 10.0, 0.0, 10.0, 0.0, 10.0, 10.0, 0.0]
ANCHORS = [["s0", "s1", "s2"], ["s0", "s2"], ["s0"], ["s0", "s1", "s1", "s2"], ["s0", "s3"], ["s0", "s3", "s1"],
           ["s0"], ["s0", "s1", "s3", "s1", "s2"]]
STEPS = [[-0.1, -0.1, 0.0], [0.5, 0.0], [0.0], [-0.1, -0.1, -0.1, 0.0], [1.0, 0.0], [0.0, -0.1, 0.0], [0.0],
         [-0.1, -0.1, -0.1, -0.1, 0.0]]
CONFIGS = {
    "gigpo": ({"estimator": "gigpo", "estimator_options": {"gamma": 0.9}},
              lambda s: gigpo_reference(GROUPS, REWARDS, TURNS, ANCHORS, gamma=0.9, step_rewards=s)),
    "gigpo-turns": ({"estimator": "gigpo", "estimator_options": {"episode_stats": "turns", "norm": "none"}},
                    lambda s: gigpo_reference(GROUPS, REWARDS, TURNS, ANCHORS, use_std=False, step_rewards=s,
                                              episode_stats="turns")),
    "grpo-sum": ({"estimator": "grpo", "estimator_options": {"reward": "sum"}},
                 lambda s: grpo_reference(GROUPS, REWARDS, TURNS, step_rewards=s, reward="sum")),
    "rloo-sum": ({"estimator": "rloo", "estimator_options": {"reward": "sum"}},
                 lambda s: rloo_reference(GROUPS, REWARDS, TURNS, s, "sum")),
    "planpo-sum": ({"estimator": "planpo", "estimator_options": {"reward": "sum"}, "total_steps": 10,  # α(3) = 0.085
                    "success": {"by": "threshold", "threshold": 10}},
                   lambda s: planpo_reference(GROUPS, REWARDS, [r == 10 for r in REWARDS], TURNS, 0.085, step_rewards=s,
                                              reward="sum")),
}


def _row(lengths: list[int], width: int = 24) -> list[int]:
    row: list[int] = []
    for n in lengths:
        row += [1] * n + [0, 0]
    return row + [0] * (width - len(row))


def _turn_rows():
    """One row per turn, reordered as trainers do: a non-final row's score is its turn's reward, the final row's
    the outcome (its own per-turn reward is 0 here: one reward per row)."""
    rows = [(i, k) for i, t in enumerate(TURNS) for k in range(len(t))][::-1]
    scores = [REWARDS[i] if k == len(TURNS[i]) - 1 else STEPS[i][k] for i, k in rows]
    return rows, scores


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("layout", ["row per trajectory", "row per turn"])
def test_through_the_facade_in_both_layouts_token_for_token(name, layout):
    settings_, reference = CONFIGS[name]
    shaper = Shaper.from_mapping({**settings_, "step_rewards": {"field": "turn_rewards", "rows": "turn"}})
    want = reference(STEPS)
    if layout == "row per trajectory":
        mask = [_row(t) for t in TURNS]
        out = shaper.advantages(REWARDS, torch.tensor(mask), GROUPS, 3, anchors=ANCHORS, step_rewards=STEPS)
        torch.testing.assert_close(out.tokens, torch.tensor(token_reference(mask, want), dtype=torch.float32))
    else:
        rows, scores = _turn_rows()
        mask = torch.tensor([_row([TURNS[i][k]], 8) for i, k in rows])
        out = shaper.advantages(scores, mask, [GROUPS[i] for i, _ in rows], 3, trajectory=[i for i, _ in rows],
                                turn_order=[k for _, k in rows], anchors=[[ANCHORS[i][k]] for i, k in rows],
                                success=[REWARDS[i] == 10 for i, _ in rows])
        for row, (i, k) in enumerate(rows):
            n = TURNS[i][k]
            torch.testing.assert_close(out.tokens[row, :n], torch.full((n,), want[i][k], dtype=torch.float32))


def test_row_scores_that_an_outcome_estimator_would_drop_are_refused():
    rows, scores = _turn_rows()
    mask = torch.tensor([_row([TURNS[i][k]], 8) for i, k in rows])
    args = (scores, mask, [GROUPS[i] for i, _ in rows], 0)
    kwargs = {"trajectory": [i for i, _ in rows], "turn_order": [k for _, k in rows]}
    for name in ("grpo", "rloo"):
        with pytest.raises(StepRewardsIgnored, match=r"per-turn rewards .* set estimator_options.reward=sum"):
            Shaper.from_mapping({"estimator": name}).advantages(*args, **kwargs)
    planpo_ = {"total_steps": 10, "success": {"by": "threshold", "threshold": 10}}
    with pytest.raises(StepRewardsIgnored, match="estimator 'planpo' estimates from each trajectory's outcome"):
        Shaper.from_mapping(planpo_).advantages(*args, **kwargs)
    # the same rows, configured: read
    assert Shaper.from_mapping({**planpo_, "estimator_options": {"reward": "sum"}}).advantages(*args, **kwargs)
    # and the facade's other path, planshape score's
    r = Rollouts.build(GROUPS, REWARDS, [False] * 8, TURNS, step_rewards=STEPS)
    with pytest.raises(StepRewardsIgnored):
        Shaper.from_mapping({"estimator": "grpo"}).estimate(r, 0)


@pytest.mark.parametrize("rows", ["auto", "copy"])
def test_copies_of_the_outcome_and_empty_rows_are_one_outcome(rows):
    """Agent loops that write the session's reward on every output (or nothing on the non-final ones): the
    outcome, as before; nothing to refuse."""
    shaper = Shaper.from_mapping({"estimator": "rloo", "step_rewards": {"rows": rows}})
    whole = shaper.advantages(REWARDS, torch.tensor([_row(t) for t in TURNS]), GROUPS, 0)
    pairs = [(i, k) for i, t in enumerate(TURNS) for k in range(len(t))]
    mask = torch.tensor([_row([TURNS[i][k]], 8) for i, k in pairs])
    for copy in (True, False):
        scores = [REWARDS[i] if copy or k == len(TURNS[i]) - 1 else 0.0 for i, k in pairs]
        split = shaper.advantages(scores, mask, [GROUPS[i] for i, _ in pairs], 0, trajectory=[i for i, _ in pairs])
        assert split.stats == pytest.approx(whole.stats)
        np.testing.assert_allclose(split.per_trajectory, [whole.per_trajectory[i] for i, _ in pairs])


def test_row_reading_is_explicit_where_asked():
    pairs = [(i, k) for i, t in enumerate(TURNS) for k in range(len(t))]
    mask = torch.tensor([_row([TURNS[i][k]], 8) for i, k in pairs])
    copies = [REWARDS[i] for i, _ in pairs]
    kwargs = {"trajectory": [i for i, _ in pairs]}
    # rows: turn reads a copy as a turn's reward: an outcome estimator then refuses it
    with pytest.raises(StepRewardsIgnored):
        Shaper.from_mapping({"estimator": "grpo", "step_rewards": {"rows": "turn"}}).advantages(
            copies, mask, [GROUPS[i] for i, _ in pairs], 0, **kwargs)
    # rows: copy refuses a non-final row that is neither 0 nor the outcome
    odd = [0.5 if k == 0 and len(TURNS[i]) > 1 else REWARDS[i] for i, k in pairs]
    with pytest.raises(ValueError, match=r"row \d+ scores 0.5, neither 0 nor its trajectory's outcome"):
        Shaper.from_mapping({"estimator": "gigpo", "step_rewards": {"rows": "copy"}}).advantages(
            odd, mask, [GROUPS[i] for i, _ in pairs], 0, anchors=[[ANCHORS[i][k]] for i, k in pairs], **kwargs)


@pytest.mark.parametrize(("settings_", "message"), [
    ({"estimator": "grpo", "step_rewards": {"field": "r"}},
     r"step_rewards.field: estimator 'grpo' estimates from each trajectory's outcome .* set "
     r"estimator_options.reward=sum"),
    ({"estimator": "rloo", "step_rewards": {"field": "r"}, "estimator_options": {"reward": "outcome"}},
     "set estimator_options.reward=sum"),
    ({"estimator": "gigpo", "estimator_options": {"episode_stats": "rows"}}, "unknown GiGPO episode_stats"),
    ({"estimator": "grpo", "estimator_options": {"reward": "total"}}, "unknown reward 'total'"),
    ({"estimator": "gigpo", "anchor": {"similarity": 1.0}}, "anchor.similarity: Input should be less than 1"),
    ({"estimator": "grpo", "anchor": {"similarity": 0.9}}, "groups no turns by anchor state"),
    ({"estimator": "gigpo", "anchor": {"by": "tool_calls", "similarity": 0.9}}, "compares text states"),
    ({"estimator": "gigpo", "step_rewards": {"rows": "some"}}, "step_rewards.rows: Input should be"),
])
def test_configurations_that_would_drop_or_misread_are_refused_at_start_up(settings_, message):
    with pytest.raises(ConfigError, match=message):
        Shaper.from_mapping(settings_)


def test_bad_per_turn_rewards_name_the_row():
    shaper = Shaper.from_mapping({"estimator": "gigpo", "step_rewards": {"field": "r"}})
    mask = torch.tensor([_row(t) for t in TURNS])
    for steps, message in [(STEPS[:-1], r"one list of per-turn rewards per trajectory \(8\)"),
                           ([*STEPS[:-1], [0.0]], r"step_rewards\[7\] holds 1 rewards for 5 turns"),
                           ([*STEPS[:-1], [float("nan")] * 5], r"step_rewards\[\d+\] is nan"),
                           ([*STEPS[:-1], "-0.1"], r"step_rewards\[7\] must be a list")]:
        with pytest.raises(ValueError, match=message):
            shaper.advantages(REWARDS, mask, GROUPS, 0, anchors=ANCHORS, step_rewards=steps)
