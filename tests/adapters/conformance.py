"""The adapter contract, as code: what every ``planshape.adapters.<trainer>`` offers, checked on the real
adapter in its trainer's venv. Each suite's ``test_conformance.py`` binds ``Contract`` for its trainer and
collects these tests (``from tests.adapters.conformance import *``).

The shape (docs/adapter-kit.md): modules ``config``, ``version``, ``check``, ``data``, ``cli``, ``reward``,
``tools`` and ``advantages`` or ``trainer``; ``version.check_version(version=None)`` returns the release or
raises the facade's ``UnsupportedRelease``; the contract's names (``config.run_shaper``, ``check.check_launch``,
``data.prepare_data``, ``reward.rewards``, ``token_advantages``) with the signatures of their ``Protocol`` in
``shaping/facade/contract.py``, read off the real functions, and doing what it says; ``planshape <trainer>
prepare-data`` and ``check`` with the shared argument shapes; the trainer's own reward path gives a passing answer
the schedule's maximum.
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
from planshape.shaping.facade import FeatureUnavailable, Report, Shaper, UnsupportedRelease, read_queries
from planshape.shaping.facade.contract import CONTRACT
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


def contract_function(contract: Contract, name: str) -> Any:
    """The adapter's function of the contract's ``name``, from the module the contract names (``a|b``: the one
    the adapter has); a skip where the installed release lacks that module's feature (TRL < 1.9's trainer)."""
    for module_name in CONTRACT[name][0].split("|"):
        if importlib.util.find_spec(f"planshape.adapters.{contract.name}.{module_name}") is None:
            continue
        try:
            return getattr(module(contract, module_name), name)
        except (UnsupportedRelease, FeatureUnavailable) as exc:
            pytest.skip(f"{contract.name}.{module_name} on this release: {exc}")
    raise AssertionError(f"{contract.name} has no module {CONTRACT[name][0]!r} for {name}")


def _parameters(fn: Any) -> list[inspect.Parameter]:
    return list(inspect.signature(fn).parameters.values())


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_each_contract_name_has_the_contracts_signature(contract, name):
    """The Protocol's parameters in order (names, kinds, defaults), then only keyword-only extras with defaults (a
    trainer's own inputs, such as VERL's multi-output layout)."""
    expected = _parameters(CONTRACT[name][1].__call__)[1:]  # without self
    found = _parameters(contract_function(contract, name))
    shape = [(p.name, p.kind, p.default) for p in found[:len(expected)]]
    assert shape == [(p.name, p.kind, p.default) for p in expected], f"{contract.name}: {name}{found}"
    extras = found[len(expected):]
    assert all(p.kind is p.KEYWORD_ONLY and p.default is not p.empty for p in extras), extras


def test_run_shaper_gives_the_runs_shaper(contract):
    shaper = contract_function(contract, "run_shaper")(SETTINGS, 10)
    assert isinstance(shaper, Shaper) and shaper.config.total_steps == 10
    assert contract_function(contract, "run_shaper")(SETTINGS, 10) is shaper  # one per process


def test_check_launch_reports(contract, tmp_path):
    result = contract.launch(tmp_path)
    assert isinstance(result, Report) and not result.errors, result.errors


def test_prepare_data_writes_every_split_it_names(contract, tmp_path):
    shaper = Shaper.from_mapping(SETTINGS)
    prepare = contract_function(contract, "prepare_data")
    out = tmp_path / "out.jsonl" if contract.name != "verl" else tmp_path / "out"  # VERL's is a folder
    suffix = ".parquet" if contract.name == "verl" else ".jsonl"
    written = prepare(shaper, ["sample"], out, tmp_path / f"held-out{suffix}", val_size=1)
    queries = len(read_queries("sample"))
    assert sorted(written) == ["train", "val"] and written["val"]["rows"] == 1
    assert sum(info["rows"] for info in written.values()) == queries
    assert Path(written["val"]["path"]) == tmp_path / f"held-out{suffix}"
    for info in written.values():
        assert Path(info["path"]).is_file()
    limited = prepare(shaper, ["sample"], tmp_path / f"limited{'' if contract.name == 'verl' else suffix}",
                      val_size=1, limit=2)
    assert sum(info["rows"] for info in limited.values()) == 2


def test_the_command_group_has_the_shared_shapes(contract, tmp_path):
    cli = module(contract, "cli")
    parser = argparse.ArgumentParser()
    cli.planshape_add_commands(parser.add_subparsers(dest="command"))
    prep = parser.parse_args([contract.name, "prepare-data", "sample", "-o", str(tmp_path / "x"), "--config",
                              '{"database": "sample"}', "--val-out", str(tmp_path / "v"), "--val-size", "1",
                              "--seed", "3", "--limit", "4"])
    assert (prep.queries, prep.val_size, prep.seed, prep.limit) == (["sample"], 1, 3, 4) and callable(prep.func)
    check = parser.parse_args([contract.name, "check", *contract.check_argv])
    assert callable(check.func) and hasattr(check, "launch") and hasattr(check, "config")


def _rollouts() -> tuple[list[str], list[Any]]:
    rows = [json.loads(line) for line in (sample.sample_dir() / "rollouts.jsonl").read_text().splitlines()]
    return [r["text"] for r in rows], [r["query"] for r in rows]


def test_the_reward_entry_scores_as_the_facade(contract):
    """``reward.rewards`` on the sample world's eight rollouts, labels as JSON text (as every trainer's dataset
    carries them): the facade's scores, field for field that a trainer reads."""
    texts, queries = _rollouts()
    facade = Shaper.from_mapping(SETTINGS)
    expected = facade.score_batch(texts, queries, 3)
    scored = contract_function(contract, "rewards")(facade, texts, [json.dumps(q) for q in queries], 3)
    assert [(s.reward, s.success, s.failure, s.metrics()) for s in scored] == \
        [(s.reward, s.success, s.failure, s.metrics()) for s in expected]


def test_the_estimator_entry_gives_the_facades_advantages(contract):
    """``token_advantages`` on a batch of two groups (3 assistant turns per row, padding after): the facade's
    per-token advantages, zero outside the mask."""
    torch = pytest.importorskip("torch")
    shaper = Shaper.from_mapping({**SETTINGS, "estimator": "planpo"})
    scores = [5.0, 1.0, 5.0, 0.0, 2.0, 5.0]
    mask = torch.tensor([[1, 1, 0, 1, 0, 1, 1, 0]] * 6)
    index = ["a", "a", "a", "b", "b", "b"]
    expected = shaper.advantages(scores, mask, index, 4)
    result = contract_function(contract, "token_advantages")(shaper, scores, mask, index, 4)
    assert torch.equal(result.tokens, expected.tokens) and result.stats == expected.stats
    assert bool((result.tokens[mask == 0] == 0).all()) and bool(result.tokens.abs().sum() > 0)


def test_the_trainers_reward_path_scores_as_the_facade(contract):
    """The sample world's eight rollouts (passing, partial, failing, no answer) through the trainer's own reward
    entry at step 0: the facade's rewards, a passing plan at stage 1's maximum."""
    texts, queries = _rollouts()
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
