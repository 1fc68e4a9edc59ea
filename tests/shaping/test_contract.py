"""The adapter contract's shared parts, without a trainer: a renamed keyword keeps working with a warning, and an
adapter's ``check`` and ``prepare-data`` commands, written once in the facade, run its contract functions (here a
stand-in adapter package: the trainers' own run in their suites, tests/adapters/conformance.py)."""

from __future__ import annotations

import argparse
import sys
import types
import warnings

import pytest
from planshape.shaping.facade import (
    Report,
    UnsupportedRelease,
    add_check_command,
    add_command_group,
    add_data_command,
    renamed,
)


@renamed(max_steps="run_steps")
def run_shaper(settings, run_steps=None):
    return settings, run_steps


def test_a_renamed_keyword_still_works_and_says_the_new_name():
    with pytest.warns(DeprecationWarning, match=r"run_shaper\(max_steps=...\) is now run_steps=..."):
        assert run_shaper("c", max_steps=5) == ("c", 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert run_shaper("c", run_steps=5) == ("c", 5)  # the contract's spelling: no warning
    with pytest.raises(TypeError, match="both 'max_steps'"):
        run_shaper("c", max_steps=5, run_steps=6)


@pytest.fixture
def adapter(monkeypatch, tmp_path):
    """A stand-in adapter package with the contract's ``check`` and ``data`` modules, recording their calls."""
    calls = []
    package = types.ModuleType("standin")
    package.__path__ = []
    check, data = types.ModuleType("standin.check"), types.ModuleType("standin.data")

    def check_launch(launch=(), config=None, run_steps=None):
        calls.append(("check", list(launch), config, run_steps))
        if config == "old.yaml":
            raise UnsupportedRelease("standin 0.1 is not supported: pip install 'standin>=1'")
        return Report(lines=["ok"])

    def prepare_data(shaper, queries, out, val_out=None, val_size=45, seed=0, limit=None):
        calls.append(("data", list(queries), str(out), val_out, val_size, seed, limit))
        return {"train": {"path": str(out), "rows": 3}}

    check.check_launch, data.prepare_data = check_launch, prepare_data
    for name, module in (("standin", package), ("standin.check", check), ("standin.data", data)):
        monkeypatch.setitem(sys.modules, name, module)
    parser = argparse.ArgumentParser()
    commands = add_command_group(parser.add_subparsers(dest="command"), "standin", "a stand-in trainer")
    add_data_command(commands, "standin", "queries -> rows", "where the rows go", lambda w: f"load {w['train']}")
    add_check_command(commands, "standin", "check a launch", "-- then the trainer's flags",
                      run_steps_help="the run's steps")
    return parser, calls


def test_the_shared_commands_run_the_adapters_contract_functions(adapter, tmp_path, capsys):
    parser, calls = adapter
    args = parser.parse_args(["standin", "check", "--config", "run.yaml", "--max-steps", "7", "--", "--flag", "x"])
    assert args.func(args) == 0 and "ok" in capsys.readouterr().out
    args = parser.parse_args(["standin", "prepare-data", "sample", "-o", str(tmp_path / "rows.jsonl"), "--val-size",
                              "2", "--limit", "3"])
    assert args.func(args) == 0 and "train: 3 rows" in capsys.readouterr().out
    assert calls == [("check", ["--flag", "x"], "run.yaml", 7),
                     ("data", ["sample"], str(tmp_path / "rows.jsonl"), None, 2, 0, 3)]


def test_a_trainer_out_of_range_is_one_line_to_fix(adapter):
    parser, _ = adapter
    args = parser.parse_args(["standin", "check", "--config", "old.yaml"])
    with pytest.raises(ValueError, match=r"^standin 0.1 is not supported: pip install"):
        args.func(args)  # the core CLI prints it as one line and exits 2
