"""The shipped example: ``train_planner.py --tiny`` trains on CPU and writes its metrics; the shipped configs
parse; the ``planshape trl`` commands work."""

from __future__ import annotations

from .conftest import require_trl

require_trl("planpo_trainer")  # the example trains PlanPOTrainer

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "adapters" / "trl" / "examples"


def test_tiny_run_trains_two_steps_and_writes_metrics(shaper, tmp_path):
    out = subprocess.run([sys.executable, str(EXAMPLES / "train_planner.py"), "--tiny", "--output_dir",
                          str(tmp_path)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    history = [json.loads(line) for line in (tmp_path / "planshape_metrics.jsonl").read_text().splitlines()]
    steps = [h for h in history if "loss" in h]
    assert len(steps) == 2 and history[-1]["train_runtime"] > 0
    for entry in steps:
        assert set(shaper.metric_names) | set(shaper.advantage_metric_names) <= set(entry)
        assert entry["completions/mean_length"] > 0 and "tools/call_frequency" in entry
    assert [s["planshape/alpha"] for s in steps] == pytest.approx([0.1, 0.075])  # total_steps from max_steps


def test_shipped_configs_parse(shared_dir, monkeypatch):
    sys.path.insert(0, str(EXAMPLES))
    try:
        import train_planner
    finally:
        sys.path.remove(str(EXAMPLES))
    from planshape.adapters.trl.config import run_shaper

    monkeypatch.chdir(EXAMPLES.parents[2])  # the configs' paths are relative to the repository root
    args, training, model = train_planner.parse(["--config", str(EXAMPLES / "grpo_planner.yaml"),
                                                 "--bf16", "false", "--use_cpu", "true", "--use_vllm", "false"])
    assert (training.max_steps, training.num_generations, model.model_name_or_path) == (500, 8, "Qwen/Qwen3-8B")
    shaper = run_shaper(args.shaping, training.max_steps)
    described = shaper.describe()
    assert described["estimator"] == "planpo" and described["alpha"]["steps"] == 500
    assert [s["from_step"] for s in described["stages"]] == [0, 100, 400]


def test_cli_prepare_data_and_check(tmp_path, shared_dir, capsys):
    import argparse

    from planshape.adapters.trl.cli import planshape_add_commands

    parser = argparse.ArgumentParser()
    planshape_add_commands(parser.add_subparsers(dest="command"))
    output = tmp_path / "rows.jsonl"
    args = parser.parse_args(["trl", "prepare-data", str(shared_dir / "train.csv"), "-o", str(output), "--limit", "5"])
    assert args.func(args) == 0
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert len(rows) == 5 and rows[0]["prompt"][0]["role"] == "system"
    capsys.readouterr()
    args = parser.parse_args(["trl", "check", "--config", '{"database": "sample", "estimator": "grpo"}'])
    assert args.func(args) == 0
    out = capsys.readouterr()
    import trl

    assert out.out.startswith(f"trl {trl.__version__} ") and "estimator: grpo" in out.out
    assert "ok: nothing to fix" in out.out
    assert "not checked here: total_steps against the run's length: pass --max-steps" in out.err


def test_planshape_command_lists_the_trl_group():
    from planshape.shaping.cli import build_parser

    args = build_parser().parse_args(["trl", "prepare-data", "a.csv", "-o", "b.jsonl"])
    assert args.func.args[0] == "planshape.adapters.trl"  # the shared prepare-data, run on this adapter's data module
