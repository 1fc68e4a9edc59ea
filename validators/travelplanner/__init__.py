"""TravelPlanner checkers: sandbox database, query and plan models, schema gate, the 8 commonsense and 5 hard
checks in ``official`` and ``strict`` modes, the official metrics, the reward-hacking monitor's checking
(``Monitor``) and ``explain`` (each verdict with the rows each claim was compared with).

Standalone use, no GPU and no trainer needed::

    from planshape.validators.travelplanner import load_database, Query, check_plan
    result = check_plan(plan, Query.from_record(row), load_database("database"), mode="strict")

Data: TravelPlanner (Xie et al., ICML 2024, arXiv 2402.01622), CC-BY-4.0.
"""

from .checks import COMMONSENSE, HARD, Check, Trip
from .database import DatabaseError, load_database
from .evaluate import PlanResult, Status, Verdict, check_plan
from .explain import Explanation, explain
from .metrics import METRIC_LABELS, compute_metrics
from .modes import OFFICIAL, STRICT, Mode, get_mode
from .monitor import Monitor, Watch
from .plan_format import GateResult, from_upstream, gate, plan_schema, to_upstream
from .query import LocalConstraint, Query, load_queries
from .reference import sandbox_from_reference
from .sandbox import Sandbox, SandboxStore

__all__ = [
    "COMMONSENSE", "HARD", "METRIC_LABELS", "OFFICIAL", "STRICT", "Check", "DatabaseError", "Explanation",
    "GateResult", "LocalConstraint", "Mode", "Monitor", "PlanResult", "Query", "Sandbox", "SandboxStore", "Status",
    "Trip", "Verdict", "Watch", "check_plan", "compute_metrics", "explain", "from_upstream", "gate", "get_mode",
    "load_database", "load_queries", "plan_schema", "sandbox_from_reference", "to_upstream",
]
