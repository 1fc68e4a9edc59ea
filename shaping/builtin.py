"""The built-in plugin: planshape's own defaults, registered through the same hooks as any third-party plugin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from planshape.validators.travelplanner.checks.registry import COMMONSENSE, HARD, Check
from planshape.validators.travelplanner.checks.verdicts import PlanResult
from planshape.validators.travelplanner.evaluation.relations import RELATIONS, Relation
from planshape.validators.travelplanner.plan.answer import extract_answer
from planshape.validators.travelplanner.query import Query

from .advantages import BUILTIN_ESTIMATORS, Estimator
from .components import plan_components
from .hookspecs import hookimpl
from .schedules import PRESETS, Schedule


@hookimpl
def planshape_extract_answer(text: str) -> str | None:
    """The content of the last ``<answer>...</answer>`` block (Planner-R1's answer format)."""
    return extract_answer(text)


@hookimpl
def planshape_checks() -> Sequence[Check]:
    return (*COMMONSENSE, *HARD)


@hookimpl
def planshape_audit_relations() -> Sequence[Relation]:
    return RELATIONS


@hookimpl
def planshape_reward_components(result: PlanResult, query: Query) -> Mapping[str, float]:
    return plan_components(result, query)


@hookimpl
def planshape_schedules() -> Mapping[str, Schedule]:
    return PRESETS


@hookimpl
def planshape_advantage_estimators() -> Mapping[str, Estimator]:
    return BUILTIN_ESTIMATORS
