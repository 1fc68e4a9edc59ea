"""The statistics logged after an estimator count samples only: a trainer's padding rows (VERL pads a batch to a
multiple of its data-parallel size with rows whose response mask is all 0, in a group of their own) and rows with
no response token are left out of every statistic, in both layouts (a row per trajectory, a row per turn), for
every built-in estimator. The expected values are those of the same batch without the padding, computed apart."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from planshape.shaping.facade import PREFIX, Shaper
from planshape.shaping.observe.report.data import summarise
from planshape.validators.travelplanner.sample import sample_dir

ROWS = [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines()]
REWARDS = [5.0, 5.0, 2.875, 0.0, 5.0, 5.0, 0.875, 0.0]  # the sample world's stage-1 rewards
SUCCESS = [r == 5.0 for r in REWARDS]
WIDTH = 128  # 10 turns of up to 9 tokens, each followed by a 2-token observation


def _mask(turn_tokens: list[list[int]]) -> torch.Tensor:
    """One row per trajectory: each turn's tokens, a 2-token gap (a tool observation) after each."""
    mask = torch.zeros(len(turn_tokens), WIDTH)
    for i, turns in enumerate(turn_tokens):
        at = 0
        for n in turns:
            mask[i, at:at + n] = 1
            at += n + 2
    return mask


def _turns() -> list[list[int]]:
    return [[min(n, 9) for n in r["turn_tokens"]] for r in ROWS]  # short turns: the mask stays narrow


def _shaper(estimator: str) -> Shaper:
    return Shaper.from_mapping({"database": "sample", "estimator": estimator, "total_steps": 500})


def _padded(pad: int, groups: list[str], rewards: list[float], success: list[bool], mask: torch.Tensor):
    """VERL's padding: ``pad`` rows with an all-0 response mask, reward 0, failed, one uid of their own."""
    return (groups + ["pad"] * pad, rewards + [0.0] * pad, success + [False] * pad,
            torch.cat([mask, torch.zeros(pad, mask.shape[1])]))


@pytest.mark.parametrize("estimator", ["planpo", "grpo", "gigpo", "rloo"])
def test_padding_rows_change_no_statistic(estimator):
    shaper = _shaper(estimator)
    groups, mask = [r["group"] for r in ROWS], _mask(_turns())
    anchors = [[f"s{t}" for t in range(len(turns))] for turns in _turns()]
    plain = shaper.advantages(REWARDS, mask, groups, 120, success=SUCCESS, anchors=anchors)
    pad_groups, pad_rewards, pad_success, pad_mask = _padded(16, groups, REWARDS, SUCCESS, mask)
    padded = shaper.advantages(pad_rewards, pad_mask, pad_groups, 120, success=pad_success,
                               anchors=anchors + [[]] * 16)
    assert plain.stats == pytest.approx(padded.stats, abs=1e-12)
    torch.testing.assert_close(padded.tokens[:len(ROWS)], plain.tokens)  # the advantages were right already
    assert (padded.tokens[len(ROWS):] == 0).all()
    turns = [len(t) for t in _turns()]
    assert padded.stats[f"{PREFIX}turns_mean"] == pytest.approx(np.mean(turns))  # not diluted by 16 zeros
    assert padded.stats[f"{PREFIX}success_rate"] == pytest.approx(np.mean(SUCCESS))


def test_padding_rows_change_no_statistic_in_the_row_per_turn_layout():
    """VERL's multi-output sessions: a trajectory's turns on rows of their own; padding rows are one more
    trajectory each (its own session id), with no turn."""
    shaper = _shaper("planpo")
    rows, groups, rewards, success, trajectory = [], [], [], [], []
    for i, (r, turns) in enumerate(zip(ROWS, _turns(), strict=True)):
        for turn in turns:
            rows.append([turn])
            groups.append(r["group"])
            rewards.append(REWARDS[i])
            success.append(SUCCESS[i])
            trajectory.append(f"t{i}")
    mask = _mask(rows)
    plain = shaper.advantages(rewards, mask, groups, 3, success=success, trajectory=trajectory)
    pad_groups, pad_rewards, pad_success, pad_mask = _padded(5, groups, rewards, success, mask)
    padded = shaper.advantages(pad_rewards, pad_mask, pad_groups, 3, success=pad_success,
                               trajectory=trajectory + [f"pad{k}" for k in range(5)])
    assert plain.stats == pytest.approx(padded.stats, abs=1e-12)
    assert padded.stats[f"{PREFIX}turns_mean"] == pytest.approx(np.mean([len(t) for t in _turns()]))


def test_a_row_without_a_response_is_no_sample_of_the_statistics():
    """An empty response inside a real group keeps its reward in the group's baseline (the estimator sees it),
    but has no turn: it is not averaged into the turn, success and A^E statistics."""
    shaper = _shaper("planpo")
    turns = _turns()
    turns[3] = []  # the failed medium trajectory came back empty
    full = shaper.advantages(REWARDS, _mask(turns), [r["group"] for r in ROWS], 0, success=SUCCESS)
    real = [i for i in range(len(ROWS)) if turns[i]]
    stats = full.stats
    assert stats[f"{PREFIX}turns_mean"] == pytest.approx(np.mean([len(turns[i]) for i in real]))
    assert stats[f"{PREFIX}success_rate"] == pytest.approx(np.mean([SUCCESS[i] for i in real]))
    assert stats[f"{PREFIX}adv_e_mean"] == pytest.approx(np.mean(full.per_trajectory[real]))
    assert stats[f"{PREFIX}adv_e_std"] == pytest.approx(np.std(full.per_trajectory[real]))
    assert stats[f"{PREFIX}groups_multi_success"] == 1.0  # both groups: two successes each


def test_a_batch_of_padding_only_logs_zeros_not_nan():
    stats = _shaper("planpo").advantages([0.0, 0.0], torch.zeros(2, 8), ["pad", "pad"], 0, success=[False, False]).stats
    assert all(np.isfinite(v) for v in stats.values())
    assert stats[f"{PREFIX}turns_mean"] == stats[f"{PREFIX}success_rate"] == 0.0


def test_the_report_skips_the_padding_the_verdict_log_recorded(tmp_path):
    """``planshape report``'s PlanPO statistics, from the verdict log's advantage records, equal the logged ones."""
    shaper = Shaper.from_mapping({"database": "sample", "total_steps": 500, "log_dir": str(tmp_path)})
    groups, rewards, success, mask = _padded(16, [r["group"] for r in ROWS], REWARDS, SUCCESS, _mask(_turns()))
    logged = shaper.advantages(rewards, mask, groups, 7, success=success).stats
    shaper.close()
    report = summarise(tmp_path, progress=False).metrics()
    for name in shaper.advantage_metric_names:
        assert report[name][7] == pytest.approx(logged[name], abs=1e-6), name  # the log rounds
