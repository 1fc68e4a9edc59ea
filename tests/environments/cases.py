"""The one-reward cases every integration is checked on (verifiers, OpenEnv, TRL's environment class, ``planshape
rollout``): for the same answer text and query, each must give exactly the facade's reward, components and failure.

Imports only planshape, so each suite (in its own venv) computes the facade's side itself and compares.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from planshape.validators.travelplanner.plan.answer import answer_text
from planshape.validators.travelplanner.plan.formats import from_upstream
from planshape.validators.travelplanner.query import gold_plan

GOLD = (0, 1, 2)  # train rows answered with their gold plans
BROKEN = 3  # a train row answered with a hallucinated restaurant
NO_ANSWER = "I could not find a plan that fits the budget."
MALFORMED = "<answer>[{\"days\": 1, \"city\": </answer>"
OVERLONG = "<answer>[" + "{\"days\": 1}," * 40_000 + "{}]</answer>"  # past the answer-size cap


def hallucinated(plan: list) -> list:
    plan = copy.deepcopy(plan)
    city = plan[1]["current_city"].split(" to ")[-1]
    plan[1]["dinner"] = f"The Imaginary Bistro, {city}"
    return plan


def reply(answer: str) -> str:
    """A final reply as a model writes it: a sentence, then the answer block."""
    return f"Here is the plan.\n{answer}"


def cases(records: list[dict]) -> list[tuple[str, str, dict]]:
    """``(name, final reply, record)``: gold plans (the schedule's maximum), a broken plan, no answer, malformed
    JSON and an over-long answer (each failing with its reason)."""
    out = [(f"gold{i}", reply(answer_text(from_upstream(gold_plan(records[i])))), records[i]) for i in GOLD]
    out.append(("hallucinated", reply(answer_text(from_upstream(hallucinated(gold_plan(records[BROKEN]))))),
                records[BROKEN]))
    out += [("no_answer", NO_ANSWER, records[0]), ("malformed", MALFORMED, records[1]),
            ("overlong", OVERLONG, records[2])]
    return out


def good_calls(record: Mapping[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """Tool calls a planner makes for ``record`` (their results must equal ``ToolBox.call`` on the database)."""
    dates = json.loads(record["date"].replace("'", '"')) if isinstance(record["date"], str) else record["date"]
    return [("search_flights", {"origin": record["org"], "destination": record["dest"], "date": dates[0]}),
            ("search_accommodations", {"city": record["dest"]}),
            ("calculator", {"expression": "(474 + 346) * 2"})]


# Calls a model gets wrong: each is answered with an ``Error: ...`` text, never an exception.
BAD_CALLS: list[tuple[Any, Any]] = [
    ("book_hotel", {"city": "Rockford"}),  # unknown tool
    ("search_flights", '{"origin": "St. Petersburg", '),  # arguments that are not JSON
    ("search_restaurants", {"city": "x" * 5000}),  # an over-long argument
    ("search_attractions", {}),  # a missing argument
    ("calculator", ["1 + 1"]),  # arguments that are not an object
]


def facade_view(score: Any) -> dict[str, Any]:
    """What every integration must reproduce of a ``SampleScore``."""
    return {"reward": score.reward, "success": score.success, "failure": score.failure, "reason": score.reason,
            "components": dict(score.components), "metrics": score.metrics()}
