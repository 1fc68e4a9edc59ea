"""Official mode gives the upstream evaluator's own verdicts on 2,699 mutated gold plans (issues 16 and 30).

``data/upstream_verdicts.json`` holds, for every plan of ``mutations.py`` over the 45 train gold plans, the
verdicts of OSU-NLP-Group/TravelPlanner's ``evaluation`` functions, gated as its ``eval.py`` gates them, run in
upstream's environment (Python 3.9, its pinned pandas 2.0.1) against ``../shared/travelplanner/database``; its
``provenance`` names the upstream commit, the versions, the command and the digests of the database and of the
plans. ``upstream/record.py`` regenerates it from an upstream checkout. One letter per check in
``COMMONSENSE + HARD`` order (p pass, f fail, n n/a, - not run); a plan on which upstream raises is all ``x``,
and planshape must fail it as an unevaluable plan (every commonsense check fails, no hard check runs).

Most of these plans pass official: they are the exploits strict closes, so this replay is exactly where a strict
rule could leak into official, and where official could drift from upstream.
"""

from __future__ import annotations

import json
from pathlib import Path

from planshape.validators.travelplanner.checks.registry import COMMONSENSE, HARD
from planshape.validators.travelplanner.checks.verdicts import check_plan

from .mutations import mutations
from .upstream.record import plans_digest

RECORDED = Path(__file__).parent / "data" / "upstream_verdicts.json"
CODE = {"pass": "p", "fail": "f", "n/a": "n"}
CRASHED = "x" * (len(COMMONSENSE) + len(HARD))


def verdict_code(result) -> str:
    verdicts = {**result.commonsense, **(result.hard or {})}
    return "".join(CODE[verdicts[c.key].status.value] if c.key in verdicts else "-" for c in (*COMMONSENSE, *HARD))


def planshape_code(result) -> str:
    """The code of planshape's official result, with an unevaluable plan written as upstream's crash."""
    if result.note.startswith("unevaluable plan") and result.hard is None:
        assert all(v.status.value == "fail" for v in result.commonsense.values())
        return CRASHED
    return verdict_code(result)


def test_official_verdicts_equal_the_upstream_evaluators(train, database):
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert recorded["checks"] == [c.key for c in (*COMMONSENSE, *HARD)]
    plans = [(f"{k}/{name}", k, plan) for k, (query, gold) in enumerate(train)
             for name, _, plan in mutations(gold, query.days, database)]
    assert plans_digest(plans) == recorded["provenance"]["plans_sha256"], \
        "mutations.py makes other plans than were recorded: rerun tests/travelplanner/upstream/record.py"
    now = {key: planshape_code(check_plan(plan, train[k][0], database, "official")) for key, k, plan in plans}
    expected = recorded["verdicts"]
    assert len(now) == len(expected) == recorded["provenance"]["plans"] == 2699
    changed = {key: (expected[key], now[key]) for key in now if now[key] != expected[key]}
    assert not changed, f"{len(changed)} official verdicts differ from upstream's, e.g. {list(changed.items())[:3]}"


def test_the_recorded_set_exercises_the_official_checks_both_ways():
    """Most of the set passes (they are strict's exploits); what it fails upstream, official must fail too. The
    checks it fails at least once, so that a check that stopped failing would show here."""
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    codes = recorded["verdicts"].values()
    failed = {key for i, key in enumerate(recorded["checks"]) if any(v[i] == "f" for v in codes)}
    assert failed == {"is_valid_information_in_current_city", "is_reasonable_visiting_city", "is_valid_accommodation",
                      "is_not_absent"}
    assert not recorded["crashes"]  # no plan of this set crashes upstream; test_crash_paths.py covers those inputs
