"""``planshape audit`` on the 45 train gold plans in both answer formats: every edit that must lower strict's
reward lowers it, every edit that must keep it keeps it. A reward with a known quirk (official mode, which reads
plans by their exact spelling) breaks the relations it should; the command exits 1 when one breaks."""

from __future__ import annotations

import pytest
from planshape.shaping import plugins
from planshape.shaping.audit import Case, audit
from planshape.shaping.cli import main
from planshape.shaping.reward import Scorer
from planshape.validators.travelplanner.evaluation.relations import KEEP, LOWER, RELATIONS


@pytest.fixture(scope="module")
def gold_report(train, memory_database):
    cases = [Case(f"gold {k}", q, p[: q.days]) for k, (q, p) in enumerate(train)]
    return audit(cases, Scorer(memory_database, "strict", "stage1"), RELATIONS)


def test_every_relation_holds_on_the_gold_plans_in_both_formats(gold_report):
    counts = gold_report.counts()
    assert {f for _, f in counts} == {"strings", "json"}
    assert {r for r, _ in counts} == {r.name for r in RELATIONS}  # every relation has edits of the gold plans
    assert not gold_report.broken, [f"{o.case} {o.format} {o.relation}: {o.edit}: {o.reason}"
                                    for o in gold_report.broken][:5]
    kept = [o for o in gold_report.outcomes if o.expect == KEEP]
    assert len(kept) > 900 and all(o.after == o.before == 5.0 for o in kept)
    assert not gold_report.skipped  # every gold plan passes, so every lower relation ran on each
    lowered = [o for o in gold_report.outcomes if o.expect == LOWER]
    assert len(lowered) > 400 and all(o.after < o.before == 5.0 for o in lowered)


def test_a_reward_with_known_quirks_breaks_its_relations(train, memory_database):
    """Official mode reads no stated value and a stay day's items per character: it pays those edits; it reads
    labels by their exact spelling: a lower-case label costs it the plan."""
    cases = [Case(f"gold {k}", q, p[: q.days]) for k, (q, p) in enumerate(train[:6])]
    chosen = [r for r in RELATIONS if r.name in ("stated-value", "item-elsewhere", "label-case")]
    report = audit(cases, Scorer(memory_database, "official", "stage1"), chosen, ("strings",))
    broken = {o.relation for o in report.broken}
    assert broken == {"stated-value", "item-elsewhere", "label-case"}
    assert all(o.reason == "the reward stayed 5" for o in report.broken if o.relation != "label-case")


def test_the_command_exits_1_when_a_relation_breaks(capsys, tmp_path):
    assert main(["audit", "--relations", "stated-value,item-repeated", "--formats", "strings"]) == 0
    out = capsys.readouterr().out
    assert "stated-value" in out and "every relation holds" in out
    report = tmp_path / "audit.json"
    assert main(["audit", "--mode", "official", "--relations", "stated-value", "--json", str(report)]) == 1
    out = capsys.readouterr().out
    assert "broken" in out and report.exists()
    with pytest.raises(SystemExit, match="unknown relation"):
        main(["audit", "--relations", "nope"])


def test_the_builtin_relations_are_the_hooks(monkeypatch):
    names = [r.name for r in plugins.audit_relations()]
    assert names[: len(RELATIONS)] == [r.name for r in RELATIONS]
    assert {r.expect for r in RELATIONS} == {KEEP, LOWER}
