"""What a plugin can extend. Every built-in (answer extraction, checks, components, schedules, estimators)
is provided through these same hooks by the internal plugin ``planshape.shaping.builtin``.

A plugin is a module or object with functions marked ``@hookimpl``, registered under the ``planshape``
entry-point group; see docs/hooks.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from planshape.validators.travelplanner.checks.registry import Check
    from planshape.validators.travelplanner.checks.verdicts import PlanResult
    from planshape.validators.travelplanner.evaluation.relations import Relation
    from planshape.validators.travelplanner.query import Query

    from .advantages import Estimator
    from .schedules import Schedule

PROJECT = "planshape"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec(firstresult=True)
def planshape_extract_answer(text: str) -> str | None:
    """The answer part of a model's full output, or None when there is none.

    The first non-None result wins; plugins registered later run first, so a plugin overrides the
    built-in (the last ``<answer>...</answer>`` block). Must not raise on any text.
    """


@hookspec
def planshape_checks() -> Sequence[Check]:
    """TravelPlanner checks to run, each a ``Check(key, label, category, run)`` with category
    "commonsense" or "hard". They enter the reward components; the official metrics count only the 13
    official checks."""


@hookspec
def planshape_audit_relations() -> Sequence[Relation]:
    """Metamorphic relations ``planshape audit`` holds the reward to, each a ``Relation(name, expect, about,
    strings, json)``: an edit of a plan (upstream strings, structured JSON, or both) that must ``keep`` the
    reward or ``lower`` it. Two plugins defining the same name is a start-up error."""


@hookspec
def planshape_reward_components(result: PlanResult, query: Query) -> Mapping[str, float]:
    """Reward components of one checked plan (called only for plans that pass the schema gate).

    Components are merged by name; each is weighted by the schedule's λ of that name (Planner-R1's five),
    or by ``Scorer(component_weights=...)`` for a plugin's own components (default 0: logged only).
    """


@hookspec
def planshape_schedules() -> Mapping[str, Schedule]:
    """Named reward schedules (``Schedule`` objects), selectable by name in every adapter's config."""


@hookspec
def planshape_advantage_estimators() -> Mapping[str, Estimator]:
    """Named advantage estimators: ``fn(rollouts: Rollouts, **options) -> Advantages``; ``fn.uses_success =
    False`` when it ignores success flags, ``fn.uses_anchors = True`` when it reads ``Rollouts.anchor``,
    ``fn.uses_step_rewards`` (True, or a function of its options) when it reads ``Rollouts.step_reward``."""


@hookspec
def planshape_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add a command group to the ``planshape`` command (each adapter adds ``planshape <trainer> ...``). Import
    heavy dependencies (a trainer, torch) only inside the commands: every ``planshape`` call builds the parser."""
