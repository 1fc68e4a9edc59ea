"""The monitor shares parses, place rows and lookups between its passes and reorders its official pass;
none of that may change a verdict. On gold plans mutated the way a policy writes (names from other plans,
fragments, spacing and suffix variants, blanks, wrong types), each of the monitor's verdicts must equal a
plain, separate ``check_plan`` in that mode, crash and unevaluable paths included."""

from __future__ import annotations

import copy
import dataclasses

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from planshape.shaping.observe.monitor import Monitor
from planshape.validators.travelplanner.checks.modes import QUIRKS, STRICT
from planshape.validators.travelplanner.checks.registry import COMMONSENSE, HARD
from planshape.validators.travelplanner.checks.verdicts import Status, check_plan

from ..travelplanner.test_properties import json_values

FIELDS = ("current_city", "transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation")
MUTATIONS = {
    "as is": lambda v: v,
    "fragment": lambda v: _name_part(v, lambda n: n[:-1]),
    "prefix": lambda v: _name_part(v, lambda n: n[: max(1, len(n) // 2)]),
    "spaced": lambda v: v.replace(",", " ,  ", 1) if isinstance(v, str) else v,
    "suffix": lambda v: f"{v}(S1)" if isinstance(v, str) else v,
    "state": lambda v: f"{v} (State)" if isinstance(v, str) else v,
    "upper": lambda v: v.upper() if isinstance(v, str) else v,
    "last attraction kept": lambda v: v.rstrip(";") if isinstance(v, str) else v,
    "semicolons": lambda v: f"{v};;" if isinstance(v, str) else v,
    "mixed transport": lambda v: f"{v}, taxi to the hotel" if isinstance(v, str) else v,
    "blank": lambda v: " ",
    "dash": lambda v: "-",
    "empty": lambda v: "",
    "null": lambda v: None,
    "number": lambda v: 7,
    "list": lambda v: [v],
}
CHECKS = (*COMMONSENSE, *HARD)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _name_part(value, cut):
    if not isinstance(value, str) or "," not in value:
        return value
    name, city = value.rsplit(",", 1)
    return f"{cut(name.strip())},{city}"


def _pools(train):
    """Every value each field takes over the gold plans: a policy's names come from the same world."""
    pools = {key: set() for key in FIELDS}
    for _, plan in train:
        for day in plan:
            for key in FIELDS:
                if isinstance(day.get(key), str):
                    pools[key].add(day[key])
    return {key: sorted(values) for key, values in pools.items()}


def _assert_same_verdicts(plan, query, store) -> str:
    plain = {mode: check_plan(plan, query, store, mode) for mode in ("strict", "official")}
    for mode in ("strict", "official"):
        result, watch = Monitor(mode).check(plan, query, store)
        assert result.to_dict() == plain[mode].to_dict()
        assert watch.official_pass == plain["official"].final_pass
        assert watch.strict_pass == plain["strict"].final_pass
        assert watch.exploit == (plain["official"].final_pass and not plain["strict"].final_pass)
        if watch.exploit:
            assert watch.rules == _rules_by_brute_force(plan, query, store, plain["strict"], watch.checks)
    return f"official {plain['official'].final_pass}, strict {plain['strict'].final_pass}"


def _rules_by_brute_force(plan, query, store, strict, checks):
    """The flags whose reopening alone passes every separating check (else: those that pass some), by plain
    checks under every flag: none of the monitor's shortcuts (shared memo, only the flags the checks read)."""
    failed = [k for k, v in {**strict.commonsense, **(strict.hard or {})}.items() if v.status is Status.FAIL]
    assert checks == tuple(failed)

    def passes(quirk, key):
        check = next(c for c in CHECKS if c.key == key)
        alone = ([check], []) if check.category == "commonsense" else ([], [check])  # a hard check without its gate
        result = check_plan(plan, query, store, dataclasses.replace(STRICT, **{quirk: True}), *alone)
        verdicts = {**result.commonsense, **(result.hard or {})}
        return key in verdicts and verdicts[key].status is not Status.FAIL

    rules = tuple(q for q in QUIRKS if checks and all(passes(q, k) for k in checks))
    return rules or tuple(q for q in QUIRKS if any(passes(q, k) for k in checks))


@SETTINGS
@given(data=st.data())
def test_monitored_verdicts_equal_plain_checks_on_mutated_gold_plans(train, database, data):
    pools = _pools(train)
    query, gold = data.draw(st.sampled_from(train), label="gold plan")
    plan = copy.deepcopy(gold)
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        day = data.draw(st.integers(0, query.days - 1), label="day")
        key = data.draw(st.sampled_from(FIELDS), label="field")
        source = data.draw(st.sampled_from(("own", "other plan", "another field")), label="source")
        if source == "own":
            value = plan[day].get(key, "-")
        elif source == "other plan":
            value = data.draw(st.sampled_from(pools[key]), label="value")
        else:  # e.g. lunch copied into dinner: a repeat
            value = plan[data.draw(st.integers(0, query.days - 1))].get(data.draw(st.sampled_from(FIELDS)), "-")
        plan[day][key] = MUTATIONS[data.draw(st.sampled_from(sorted(MUTATIONS)), label="mutation")](value)
    event(_assert_same_verdicts(plan, query, database))


@SETTINGS
@given(data=st.data())
def test_monitored_verdicts_equal_plain_checks_on_any_field_value(train, database, data):
    query, gold = data.draw(st.sampled_from(train), label="gold plan")
    plan = copy.deepcopy(gold)
    plan[data.draw(st.integers(0, query.days - 1))][data.draw(st.sampled_from(FIELDS))] = data.draw(json_values)
    event(_assert_same_verdicts(plan, query, database))


def test_every_gold_plan_passes_both_modes_through_the_monitor(train, database):
    for query, plan in train:
        _assert_same_verdicts(plan, query, database)
        assert Monitor("strict").check(plan, query, database)[1].official_pass
