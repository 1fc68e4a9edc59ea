"""TravelPlanner checkers, one folder per part:

* ``store/``: the sandbox database (official CSV layout, or the built-once SQLite store), per-query sandboxes;
* ``plan/``: the two plan formats, the schema gate, the ``<answer>`` block;
* ``checks/``: the 8 commonsense and 5 hard checks in ``official`` and ``strict`` modes, the monitor's pass;
* ``agent/``: the seven tools, tool calls as text, the training prompt, an episode, the MCP server;
* ``evaluation/``: the official metrics, submissions, reports and ``explain``.

``query`` (the query model), ``text`` (upstream's string formats), ``jsonl`` and ``sample`` (the project's own
invented world) serve every part. Standalone use, no GPU and no trainer needed::

    from planshape.validators.travelplanner import load_database, Query, check_plan
    result = check_plan(plan, Query.from_record(row), load_database("database"), mode="strict")

Data: TravelPlanner (Xie et al., ICML 2024, arXiv 2402.01622), CC-BY-4.0.
"""

from .agent.episode import Episode, run_episode
from .agent.tools import TOOL_SCHEMAS, ToolBox
from .checks.modes import OFFICIAL, STRICT, Mode, get_mode
from .checks.monitor import Monitor, Watch
from .checks.registry import COMMONSENSE, HARD, Check, Trip
from .checks.verdicts import PlanResult, Status, Verdict, check_plan
from .evaluation.explain import Explanation, explain
from .evaluation.metrics import METRIC_LABELS, compute_metrics
from .plan.answer import answer_text, extract_answer
from .plan.formats import GateResult, from_upstream, gate, plan_schema, to_upstream
from .query import LocalConstraint, Query, load_queries
from .store import DatabaseError, Sandbox, SandboxStore, build_store, load_database, open_store, sandbox_from_reference

__all__ = [
    "COMMONSENSE", "HARD", "METRIC_LABELS", "OFFICIAL", "STRICT", "TOOL_SCHEMAS", "Check", "DatabaseError",
    "Episode", "Explanation", "GateResult", "LocalConstraint", "Mode", "Monitor", "PlanResult", "Query", "Sandbox",
    "SandboxStore", "Status", "ToolBox", "Trip", "Verdict", "Watch", "answer_text", "build_store", "check_plan",
    "compute_metrics", "explain", "extract_answer", "from_upstream", "gate", "get_mode", "load_database",
    "load_queries", "open_store", "plan_schema", "run_episode", "sandbox_from_reference", "to_upstream",
]
