"""A reward that is not planshape's, in VERL's ``compute_score`` form (loaded by path, as a user's would be): a
WebShop-style task whose shaped score and success disagree, so that only the success flag (``acc``) says which
rollouts succeeded. The episode's last line states its outcome, ``score=<x> solved=<0|1>``."""

from __future__ import annotations

import re
from typing import Any

OUTCOME = re.compile(r"score=([0-9.]+) solved=([01])")


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None) -> dict[str, Any]:
    found = OUTCOME.findall(solution_str)
    score, solved = found[-1] if found else ("0", "0")
    return {"score": float(score), "acc": int(solved)}
