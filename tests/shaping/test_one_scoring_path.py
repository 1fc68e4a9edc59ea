"""``planshape score`` and the facade are one scoring path: same rewards, success flags and advantages."""

import json

import numpy as np
import pytest
import torch
from planshape.shaping import Shaper
from planshape.shaping.cli import main
from planshape.validators.travelplanner.sample import sample_dir

ROWS = [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines()]


def _mask(rows: list[dict]) -> torch.Tensor:
    """A trainer's assistant mask for the rollouts: each turn a run of 1s, one 0 (a tool reply) between turns."""
    bits = []
    for row in rows:
        line: list[int] = []
        for n in row["turn_tokens"]:
            line += [1] * n + [0]
        bits.append(line)
    width = max(map(len, bits))
    return torch.tensor([line + [0] * (width - len(line)) for line in bits])


@pytest.mark.parametrize("settings", [
    {"success": {"by": "threshold", "threshold": 2.5}},
    {},
    {"schedule": "curriculum-8b", "estimator_options": {"grouping": "index"}},
    {"estimator": "grpo"},
], ids=["threshold", "pass", "curriculum", "grpo"])
@pytest.mark.parametrize("step", [0, 120])
def test_cli_score_equals_the_facade(tmp_path, settings, step):
    config = {"database": "sample", "total_steps": 500, **settings}
    path = tmp_path / "planshape.json"
    path.write_text(json.dumps(config))
    out = tmp_path / "report.json"
    assert main(["score", "--config", str(path), "--step", str(step), "--json", str(out)]) == 0
    report = json.loads(out.read_text())["trajectories"]

    shaper = Shaper.from_mapping(config)
    scored = shaper.score_batch([r["text"] for r in ROWS], [r["query"] for r in ROWS], step)
    # a trainer's path: scores and mask only, success read back from the reward (as VERL's estimator does)
    adv = shaper.advantages(torch.tensor([s.reward for s in scored]), _mask(ROWS), [r["group"] for r in ROWS], step)

    assert [t["reward"] for t in report] == [s.reward for s in scored]
    assert [t["success"] for t in report] == [s.success for s in scored] == adv.success.tolist()
    assert [t["failure"] for t in report] == [s.failure for s in scored]
    np.testing.assert_allclose([t["advantage_trajectory"] for t in report], adv.per_trajectory, rtol=1e-9)
    np.testing.assert_allclose([a for t in report for a in t["advantage_turns"]], adv.per_turn, rtol=1e-9)


def test_the_threshold_counts_a_partial_plan_as_a_success_everywhere(tmp_path):
    """The 2.875-reward rollout of the sample world succeeds under threshold 2.5 and fails under the final pass."""
    partial = 2
    threshold = Shaper.from_mapping({"database": "sample", "total_steps": 500,
                                     "success": {"by": "threshold", "threshold": 2.5}})
    by_pass = Shaper.from_mapping({"database": "sample", "total_steps": 500})
    row = ROWS[partial]
    assert threshold.score(row["text"], row["query"], 0).reward == pytest.approx(2.875)
    assert threshold.score(row["text"], row["query"], 0).success
    assert threshold.success_from_rewards([2.875], 0).tolist() == [True]
    assert not by_pass.score(row["text"], row["query"], 0).success
    assert by_pass.success_from_rewards([2.875], 0).tolist() == [False]
