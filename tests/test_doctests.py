"""The ``>>>`` examples in the public API's docstrings run as written (TRL's habit): the first thing a user
reads is also a test."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = (
    "planshape.shaping.advantages",
    "planshape.shaping.facade.shaper",
    "planshape.shaping.facade.estimator",
    "planshape.shaping.observe.metric_names",
    "planshape.shaping.reward.scorer",
    "planshape.shaping.reward.success",
    "planshape.shaping.reward.weighing",
    "planshape.validators.travelplanner.plan.answer",
    "planshape.validators.travelplanner.plan.formats",
    "planshape.validators.travelplanner.agent.calculator",
    "planshape.validators.travelplanner.agent.tool_calls",
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no >>> example"
    assert result.failed == 0
