"""A TravelPlanner solver: for a query, the cheapest plan that passes every strict check (a witness), or a proof
that none exists naming the constraint that rules it out.

``candidates`` filters the database exactly, ``clock`` times day shapes with the strict check's own timeline,
``model`` is the CP-SAT model, ``witness`` writes and checks the plan, ``reasons`` explains an infeasible query,
``batch`` solves many. Needs OR-Tools (``pip install 'planshape[solver]'``); importing this package does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .solution import Solution

__all__ = ["Solution", "solve"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import solution as module

        return getattr(module, name)
    raise AttributeError(name)
