"""The adapter contract, as code: what every ``planshape.adapters.<trainer>`` offers, checked on the real
adapter in its trainer's venv. Each suite's ``test_conformance.py`` binds ``Contract`` for its trainer and
collects these tests (``from tests.adapters.conformance import *``).

The shape (docs/adapter-kit.md): modules ``config``, ``version``, ``check``, ``data``, ``cli``, ``reward``,
``tools`` and ``advantages`` or ``trainer``; ``version.check_version(version=None)`` returns the release or
raises the facade's ``UnsupportedRelease``; ``config.run_shaper`` gives the run's ``Shaper``;
``check.check_launch`` gives a ``Report``; ``data.prepare_data(shaper, queries, out, ...)`` returns
``{split: {"path", "rows"}}``; ``planshape <trainer> prepare-data`` and ``check`` exist with the shared argument
shapes; the trainer's own reward path gives a passing answer the schedule's maximum.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from planshape.shaping.facade import Report, Shaper, UnsupportedRelease
from planshape.validators.travelplanner import sample

from tests.one_path_plugin import CHECK, loaded, passing_rollout

SETTINGS = {"database": "sample", "schedule": "stage1", "estimator": "grpo", "total_steps": 10}
"""The run every binding scores with (its reward path is given these settings too)."""
MODULES = ("config", "version", "check", "data", "cli", "reward", "tools")
ESTIMATOR_MODULES = ("advantages", "trainer")


@dataclass(frozen=True)
class Contract:
    """What a suite tells the contract about its trainer."""

    name: str  # the adapter package and the ``planshape <name>`` command group
    distribution: str  # the trainer's distribution name
    launch: Callable[[Path], Report]  # the adapter's ``check_launch`` on a good run of the sample world
    reward: Callable[[Sequence[str], Sequence[Any]], list[float]]  # the trainer's reward path, SETTINGS, step 0
    check_argv: Sequence[str]  # ``planshape <name> check ...`` arguments that parse


def module(contract: Contract, name: str) -> Any:
    return importlib.import_module(f"planshape.adapters.{contract.name}.{name}")


def test_the_adapter_has_the_modules_of_the_contract(contract):
    for name in MODULES:
        assert inspect.getdoc(module(contract, name)), f"{contract.name}.{name} says what it is for"
    assert [n for n in ESTIMATOR_MODULES if importlib.util.find_spec(f"planshape.adapters.{contract.name}.{n}")]


def test_the_version_check_returns_the_release_or_raises_the_one_error(contract):
    version = module(contract, "version")
    assert version.check_version() == metadata.version(contract.distribution)
    with pytest.raises(UnsupportedRelease, match="pip install"):
        version.check_version("0.0.1")


def test_run_shaper_gives_the_runs_shaper(contract):
    assert callable(module(contract, "config").run_shaper)


def test_check_launch_reports(contract, tmp_path):
    report = module(contract, "check").check_launch
    assert callable(report)
    result = contract.launch(tmp_path)
    assert isinstance(result, Report) and not result.errors, result.errors


def test_prepare_data_writes_every_split_it_names(contract, tmp_path):
    shaper = Shaper.from_mapping(SETTINGS)
    prepare = module(contract, "data").prepare_data
    assert list(inspect.signature(prepare).parameters)[:3] in (["shaper", "queries", "out"],
                                                              ["shaper", "queries", "out_dir"])
    out = tmp_path / "out.jsonl" if contract.name != "verl" else tmp_path / "out"  # VERL's is a folder
    written = prepare(shaper, ["sample"], out, val_size=1)
    assert "train" in written
    queries = len(shaper.read_queries("sample"))
    assert sum(info["rows"] for info in written.values()) == queries
    for info in written.values():
        assert Path(info["path"]).is_file()


def test_the_command_group_has_the_shared_shapes(contract, tmp_path):
    cli = module(contract, "cli")
    parser = argparse.ArgumentParser()
    cli.planshape_add_commands(parser.add_subparsers(dest="command"))
    prep = parser.parse_args([contract.name, "prepare-data", "sample", "-o", str(tmp_path / "x"), "--config",
                              '{"database": "sample"}', "--val-size", "1", "--seed", "3"])
    assert (prep.queries, prep.val_size, prep.seed) == (["sample"], 1, 3) and callable(prep.func)
    assert callable(parser.parse_args([contract.name, "check", *contract.check_argv]).func)


def test_the_trainers_reward_path_scores_as_the_facade(contract):
    """The sample world's eight rollouts (passing, partial, failing, no answer) through the trainer's own reward
    entry at step 0: the facade's rewards, a passing plan at stage 1's maximum."""
    rows = [json.loads(line) for line in (sample.sample_dir() / "rollouts.jsonl").read_text().splitlines()]
    texts, queries = [r["text"] for r in rows], [r["query"] for r in rows]
    facade = Shaper.from_mapping(SETTINGS)
    expected = [s.reward for s in facade.score_batch(texts, queries, 0)]
    assert contract.reward(texts, queries) == pytest.approx(expected)
    assert max(expected) == facade.max_reward(0) == 5.0 and min(expected) == 0.0


def test_a_plugins_reading_and_checks_reach_the_trainers_reward(contract):
    """A plugin with its own answer format and a failing check: the trainer's reward reads and judges the text
    as the facade does (one path from text to verdicts)."""
    text, query = passing_rollout()
    with loaded():
        scored = Shaper.from_mapping(SETTINGS).score(text, query, 0)
        assert contract.reward([text], [query]) == pytest.approx([scored.reward])
    assert scored.failure == f"commonsense:{CHECK}" and 0 < scored.reward < 5.0
