"""Official mode is unchanged, verdict for verdict, on mutated gold plans (issue 16's acceptance).

``data/official_verdicts.json`` holds the official verdicts of every plan of ``mutations.py`` as the
checker gave them before issue 16 (commit 402725a, replayed with that checkout; the day-trip mutations of
the second hunt were added later, recorded with the same checkout): one letter per check in
``COMMONSENSE + HARD`` order (p pass, f fail, n n/a, - not run). Most of these plans pass official: they
are the exploits strict now closes, so this replay is exactly where a strict rule could leak into official.
"""

from __future__ import annotations

import json
from pathlib import Path

from planshape.validators.travelplanner.checks.registry import COMMONSENSE, HARD
from planshape.validators.travelplanner.checks.verdicts import check_plan

from .mutations import mutations

RECORDED = Path(__file__).parent / "data" / "official_verdicts.json"
CODE = {"pass": "p", "fail": "f", "n/a": "n"}


def verdict_code(result) -> str:
    verdicts = {**result.commonsense, **(result.hard or {})}
    return "".join(CODE[verdicts[c.key].status.value] if c.key in verdicts else "-" for c in (*COMMONSENSE, *HARD))


def test_official_verdicts_equal_the_pre_change_checker(train, database):
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    now = {}
    for k, (query, plan) in enumerate(train):
        for name, _, mutated in mutations(plan, query.days, database):
            now[f"{k}/{name}"] = verdict_code(check_plan(mutated, query, database, "official"))
    assert now.keys() == recorded.keys()
    changed = {key: (recorded[key], now[key]) for key in now if now[key] != recorded[key]}
    assert not changed, f"{len(changed)} official verdicts changed, e.g. {list(changed.items())[:3]}"
