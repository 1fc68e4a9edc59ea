"""Two processes, a group split across them: each rank's advantages are its slice of the core's PlanPO over the
whole gathered batch (masks padded to a common width, groups contiguous in the gathered order)."""

from __future__ import annotations

from .conftest import require_trl

require_trl("planpo_trainer")  # PlanPOTrainer across processes

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from .test_trainer import expected_planpo

PROBE = Path(__file__).with_name("distributed_probe.py")


def test_groups_split_across_two_processes(tmp_path):
    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent))
    if torchrun is None:
        pytest.skip("torchrun not found beside the interpreter")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run([torchrun, "--nproc_per_node", "2", "--master_port", "29517", str(PROBE), str(tmp_path)],
                         capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-4000:]
    ranks = [torch.load(tmp_path / f"rank{r}.pt") for r in (0, 1)]
    assert [r["world"] for r in ranks] == [2, 2]
    torch.testing.assert_close(ranks[0]["rewards_per_func"], ranks[1]["rewards_per_func"])

    width = max(r["completion_mask"].shape[1] for r in ranks)
    masks = [torch.nn.functional.pad(r["completion_mask"] * r["tool_mask"], (0, width - r["tool_mask"].shape[1]))
             for r in ranks]
    full = torch.cat(masks)
    rewards = ranks[0]["rewards_per_func"][:, 0].double().numpy()
    assert len(rewards) == full.shape[0] == 4  # one group: 2 processes x 2 rows
    prompts = [ids[mask.bool()].tolist() for r in ranks
               for ids, mask in zip(r["prompt_ids"], r["prompt_mask"], strict=True)]
    assert len(prompts) == 4 and all(p == prompts[0] for p in prompts)  # the same prompt on both ranks
    expected, _ = expected_planpo(rewards, rewards >= 5.0 - 1e-6, full, ranks[0]["step"])
    assert expected.abs().sum() > 0
    for r, rows in zip(ranks, (slice(0, 2), slice(2, 4)), strict=True):
        local = expected[rows, : r["advantages"].shape[1]]
        torch.testing.assert_close(r["advantages"].double(), local, rtol=1e-5, atol=1e-6)
