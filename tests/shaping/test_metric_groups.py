"""Metric groups (``metrics:`` in the config): the facade's names are the one key list every trainer's suite
asserts, and each group switched off removes exactly its keys, from the names and from what is logged."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from planshape.shaping.facade import ConfigError, Shaper
from planshape.validators.travelplanner.sample import sample_dir

from ..adapters.metric_keys import GROUP_CHOICES, GROUPS, KEYS, expected_keys

ROWS = [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines()]
BASE = {"database": "sample", "total_steps": 100}


def _logged(shaper: Shaper) -> set[str]:
    """Every key a trainer logs for one step: the score metrics of real and unscored samples, and the
    advantage statistics of a multi-turn batch."""
    scores = shaper.score_batch([r["text"] for r in ROWS], [r["query"] for r in ROWS], 3)
    keys = {frozenset(s.metrics()) for s in [*scores, shaper.unscored(3, "timeout")]}
    assert len(keys) == 1  # one key set for every sample, whatever happened to it
    mask = torch.tensor([[1, 1, 0, 1, 0], [1, 0, 0, 0, 0]] * 4)
    stats = shaper.advantages([s.reward for s in scores], mask, [r["group"] for r in ROWS], 3).stats
    return set(next(iter(keys))) | set(stats) | set(shaper.metric_means(scores))


def test_the_facade_names_are_the_one_key_list():
    shaper = Shaper.from_mapping(BASE)
    assert tuple(shaper.metric_groups) == GROUPS
    assert {g: set(names) for g, names in shaper.metric_groups.items()} == {g: set(k) for g, k in KEYS.items()}
    assert set(shaper.metric_names) | set(shaper.advantage_metric_names) == expected_keys()
    assert _logged(shaper) == expected_keys()  # all on by default


@pytest.mark.parametrize("groups", GROUP_CHOICES, ids="+".join)
def test_each_group_changes_exactly_its_keys(groups):
    shaper = Shaper.from_mapping({**BASE, "metrics": list(groups)})
    assert _logged(shaper) == expected_keys(groups)
    assert set(shaper.metric_names) | set(shaper.advantage_metric_names) == expected_keys(groups)


def test_groups_change_what_is_logged_not_the_numbers():
    every = Shaper.from_mapping(BASE)
    compact = Shaper.from_mapping({**BASE, "metrics": ["components", "core"]})  # any order; one order kept
    assert compact.config.metrics == ("core", "components")
    a = every.score(ROWS[2]["text"], ROWS[2]["query"], 0)
    b = compact.score(ROWS[2]["text"], ROWS[2]["query"], 0)
    assert (a.reward, a.failure, a.components, a.watch) == (b.reward, b.failure, b.components, b.watch)
    assert b.metrics() == {k: v for k, v in a.metrics().items() if k in expected_keys(("core", "components"))}
    assert "metrics" in compact.describe() and compact.describe()["metrics"] == ["core", "components"]
    none = Shaper.from_mapping({**BASE, "metrics": []})
    assert none.metric_names == () and none.score(ROWS[0]["text"], ROWS[0]["query"], 0).metrics() == {}
    adv = none.advantages(np.array([1.0, 0.0]), torch.tensor([[1, 0], [1, 1]]), ["g", "g"], 0)
    assert adv.stats == {} and adv.tokens.shape == (2, 2)  # the advantages themselves are unaffected


def test_the_monitor_group_is_empty_when_the_monitor_is_off():
    shaper = Shaper.from_mapping({**BASE, "monitor": False})
    assert shaper.metric_groups["monitor"] == ()
    assert _logged(shaper) == expected_keys(g for g in GROUPS if g != "monitor")


def test_an_unknown_group_fails_at_start_naming_the_groups():
    with pytest.raises(ConfigError, match=r"metrics: unknown metric group\(s\) \['failure'\]; known: \['core'"):
        Shaper.from_mapping({**BASE, "metrics": ["core", "failure"]})
