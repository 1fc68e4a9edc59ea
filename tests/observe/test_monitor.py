"""The reward-hacking monitor: gold plans are not exploits; each strict-closed quirk family is, and is named.

The families below are strict's quirk flags (docs/modes.md), the hardening issue's (quirks 11-15) included.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from planshape.shaping import Shaper
from planshape.shaping.observe.monitor import MONITOR_METRICS, watch_metrics
from planshape.validators.travelplanner.checks.lookups import SharedLookups
from planshape.validators.travelplanner.checks.modes import QUIRKS
from planshape.validators.travelplanner.checks.monitor import NOT_CHECKED, UNATTRIBUTED, Monitor, Watch
from planshape.validators.travelplanner.checks.plan_memo import PlanMemo
from planshape.validators.travelplanner.checks.verdicts import check_plan

from ..travelplanner.helpers import ROCKFORD, rockford
from ..travelplanner.test_quirks import SAMPLE_Q, sample


def test_gold_plans_pass_both_modes_and_are_not_exploits(train, database):
    monitor = Monitor("strict")
    for query, plan in train:
        result, watch = monitor.check(plan, query, database)
        assert result.final_pass and result.mode == "strict"
        assert (watch.official_pass, watch.strict_pass, watch.exploit, watch.rule) == (True, True, False, "")
    official = Monitor("official")
    for query, plan in train:
        result, watch = official.check(plan, query, database)
        assert result.mode == "official" and not watch.exploit


def test_the_reward_result_equals_a_plain_check(train, database):
    """Sharing lookups must not change a single verdict, in either mode."""
    for mode in ("strict", "official"):
        for query, plan in train[:15]:
            for edited in (plan, _mangled(plan)):
                shared, _ = Monitor(mode).check(edited, query, database)
                assert shared.to_dict() == check_plan(edited, query, database, mode).to_dict()


def _mangled(plan):
    plan = copy.deepcopy(plan)
    plan[-1]["breakfast"] = "Subw, Rockford"
    plan[0]["attraction"] = "Free time"
    return plan


def test_shared_lookups_answer_as_the_store_does(train, database):
    """Shared lookups keep the store's answers; the store's substring index keeps upstream's scan."""
    shared = SharedLookups(database)
    for _, plan in train:
        for day in plan:
            for key, table in (("breakfast", "restaurants"), ("accommodation", "accommodations"),
                               ("attraction", "attractions")):
                text = day.get(key, "-")
                if not isinstance(text, str) or "," not in text:
                    continue
                name, city = text.split(";")[0].rsplit(",", 1)
                for fragment in (name.strip(), name.strip()[:4], " " + name.strip() + " ", ""):
                    args = (table, fragment, city.strip())
                    scan = [r for r in database.in_city(table, city.strip()) if fragment in r.name]
                    assert database.places(*args) == scan
                    for exact in (True, False):
                        assert shared.places(*args, exact=exact) == database.places(*args, exact=exact)


def test_the_substring_index_covers_every_stored_name(database):
    """Each stored name of a city (itself a substring of longer names there) answers as a scan does."""
    for table in ("restaurants", "attractions", "accommodations"):
        for city in sorted(database.city_state)[:40]:
            rows = database.in_city(table, city)
            for row in rows:
                name = row.name.strip()
                assert database.places(table, name, city) == [r for r in rows if name in r.name]


def test_a_plan_memo_serves_only_its_own_store(train, database):
    query, plan = train[0]
    with pytest.raises(ValueError, match="PlanMemo"):
        check_plan(plan, query, database, "strict", memo=PlanMemo(SharedLookups(database)))
    memo = PlanMemo(database)
    assert check_plan(plan, query, database, "strict", memo=memo).final_pass
    assert check_plan(plan, query, database, "official", memo=memo).final_pass


FAMILIES = {
    "stay_day_chars": lambda db: (rockford(edits={(1, "breakfast"): f"{db.in_city('restaurants', 'Chicago')[0].name}"
                                                                      ", Chicago"}), ROCKFORD, db),
    "drop_last_attraction": lambda db: (rockford(edits={(1, "attraction"): "Free time"}), ROCKFORD, db),
    "substring_match": lambda db: (rockford(edits={(1, "breakfast"): "Dial, Rockford"}), ROCKFORD, db),
    "exact_repeats": lambda db: (rockford(edits={(2, "lunch"): "Flying Mango,  Rockford"}), ROCKFORD, db),
    "unchecked_transport": lambda db: (rockford(edits={(2, "transportation"): "Bus from Rockford to St. Petersburg"}),
                                       ROCKFORD, db),
    "any_city_on_3_days": lambda db: (rockford(), ROCKFORD.model_copy(update={"dest": "Chicago"}), db),
    "same_place_by_text": lambda db: (rockford(edits={(2, "lunch"): "Flying Mango , Rockford"}), ROCKFORD, db),
    "city_by_substring": lambda db: (rockford(edits={(0, "transportation"): "Taxi, from Rockford to Chicago, "
                                                                            "St. Petersburg"}), ROCKFORD, db),
    "mixed_transport_words": lambda db: (rockford(edits={(0, "transportation"): rockford()[0]["transportation"]
                                                         + ", taxi to the hotel"}), ROCKFORD, db),
    "blank_fields_count": lambda db: (rockford(edits={(1, "breakfast"): None}), ROCKFORD, db),
}
# Shapes that a later rule closes too ("(S1)" after the city names no state: Q17). The monitor names every such
# rule. (The taxi string's trailing ", St. Petersburg" names no value: strict's reader, Q22, leaves it unread.)
ALSO_CLOSED_BY: dict[str, tuple[str, ...]] = {}
SAMPLE_FAMILIES = {
    "ignore_flight_date": lambda: (sample({(0, "transportation"): "Flight Number: F9000201, from Harborview to "
                                          "Lindenfield, Departure Time: 07:30, Arrival Time: 09:20"}), SAMPLE_Q),
    "case_sensitive_transport": lambda: (sample({
        (0, "transportation"): "self-driving, from Harborview to Lindenfield, duration: 9 hours 40 mins, "
                               "distance: 998 km, cost: 49",
        (2, "transportation"): "self-driving, from Lindenfield to Harborview, duration: 9 hours 35 mins, "
                               "distance: 996 km, cost: 49"}),
        SAMPLE_Q.model_copy(update={"local_constraint": SAMPLE_Q.local_constraint.model_copy(
            update={"transportation": "no self-driving"})})),
}


@pytest.mark.parametrize("quirk", sorted(FAMILIES))
def test_quirk_family_is_an_exploit_named_by_its_flag(quirk, database):
    plan, query, store = FAMILIES[quirk](database)
    _, watch = Monitor("strict").check(plan, query, store)
    assert watch.exploit, watch
    assert watch.rules == (quirk, *ALSO_CLOSED_BY.get(quirk, ())) and watch.rule == quirk
    metrics = watch_metrics(watch)
    assert metrics["exploit"] == metrics[f"exploit/{quirk}"] == 1.0
    assert sum(v for k, v in metrics.items() if k.startswith("exploit/")) == len(watch.rules)


def test_a_shape_two_rules_close_is_named_by_both(database):
    _, watch = Monitor("strict").check(rockford(edits={(2, "lunch"): "Flying Mango, Rockford (then Coco Bambu)"}),
                                       ROCKFORD, database)
    assert watch.exploit and watch.rules == ("same_place_by_text", "several_places_per_field")
    # "(S1)" after the city is a remark strict's reader leaves unread (it names no place): only the repeat is left
    _, watch = Monitor("strict").check(rockford(edits={(2, "lunch"): "Flying Mango, Rockford(S1)"}), ROCKFORD,
                                       database)
    assert watch.exploit and watch.rules == ("same_place_by_text",)


@pytest.mark.parametrize("quirk", sorted(SAMPLE_FAMILIES))
def test_quirk_family_on_the_sample_world(quirk, sample_store):
    plan, query = SAMPLE_FAMILIES[quirk]()
    _, watch = Monitor("strict").check(plan, query, sample_store)
    assert watch.exploit and watch.rules == (quirk,)


def test_official_reward_mode_still_watches_strict(database):
    plan, query, store = FAMILIES["substring_match"](database)
    result, watch = Monitor("official").check(plan, query, store)
    assert result.mode == "official" and result.final_pass
    assert watch.exploit and watch.rules == ("substring_match",)
    assert watch.checks == ("is_valid_information_in_sandbox",)


def test_a_plan_official_fails_is_not_an_exploit(database):
    # "Rockford (Illinois)": official fails (quirk 10), strict passes: the reverse of an exploit
    _, watch = Monitor("strict").check(rockford(edits={(1, "current_city"): "Rockford (Illinois)"}), ROCKFORD, database)
    assert (watch.official_pass, watch.strict_pass, watch.exploit) == (False, True, False)
    _, watch = Monitor("strict").check(rockford(edits={(1, "breakfast"): "Nowhere, Rockford"}), ROCKFORD, database)
    assert (watch.official_pass, watch.strict_pass, watch.exploit) == (False, False, False)


def test_unattributed_when_no_single_flag_explains(database, monkeypatch):
    plan, query, store = FAMILIES["substring_match"](database)
    monitor = Monitor("strict")
    monitor._reopened.pop("substring_match")
    _, watch = monitor.check(plan, query, store)
    assert watch.exploit and watch.rules == () and watch.rule == UNATTRIBUTED
    assert watch_metrics(watch)[f"exploit/{UNATTRIBUTED}"] == 1.0


def test_batch_rates_have_every_name():
    """The monitor's rates are the facade's batch means of its per-sample metrics (what every trainer logs)."""
    shaper = Shaper.from_mapping({"database": "sample", "monitor": True, "estimator": "grpo"})
    unscored = shaper.unscored(0)
    exploit = Watch(True, False, ("is_valid_restaurants",), ("exact_repeats",))
    scores = [replace(unscored, watch=w) for w in (exploit, Watch(True, True), NOT_CHECKED, NOT_CHECKED)]
    rates = {k: v for k, v in shaper.metric_means(scores).items() if k.removeprefix("planshape/") in MONITOR_METRICS}
    assert set(rates) == {"planshape/" + n for n in MONITOR_METRICS}
    assert rates["planshape/official_pass"] == 0.5 and rates["planshape/strict_pass"] == 0.25
    assert rates["planshape/exploit"] == rates["planshape/exploit/exact_repeats"] == 0.25
    assert all(rates[f"planshape/exploit/{q}"] == 0 for q in QUIRKS if q != "exact_repeats")
    empty = shaper.metric_means([])
    assert {empty[k] for k in rates} == {0.0}


# ---- exploit families of the hardening issue (issue 8)

def _city_in_name(database, train):
    """A stay day of a gold plan, and a restaurant of *another* city whose name contains that day's city."""
    for query, plan in train:
        for i, day in enumerate(plan[: query.days]):  # the padding days ({}) have no city
            city = day.get("current_city", "")
            if not isinstance(city, str) or not city or "from" in city:
                continue
            for other in sorted(set(database.city_state) - {city}):
                for row in database.in_city("restaurants", other):
                    if city in row.name:
                        return query, plan, i, f"{row.name}, {other}"
    pytest.skip("no restaurant name contains another city's name")


@pytest.mark.parametrize("variant", ["Flying Mango, Rockford(S1)", "Flying Mango , Rockford"])
def test_harden_repeat_by_lookup_variant(variant, database):
    plan = rockford(edits={(2, "lunch"): variant})  # the same database row as day 2's lunch
    _, watch = Monitor("strict").check(plan, ROCKFORD, database)
    assert watch.official_pass
    assert watch.exploit and "is_valid_restaurants" in watch.checks and watch.rules


def test_harden_current_city_by_substring(database, train):
    query, plan, day, restaurant = _city_in_name(database, train)
    plan = copy.deepcopy(plan)
    plan[day]["dinner"] = restaurant
    _, watch = Monitor("strict").check(plan, query, database)
    if not watch.official_pass:
        pytest.skip("the substitute breaks another official check of this plan")
    assert watch.exploit and "is_valid_information_in_current_city" in watch.checks and watch.rules


NASTY = [
    None, [], "not a plan", [None], [1, 2, 3], [{"current_city": None}],
    [{"days": 1, "current_city": "from St. Petersburg to Rockford", "transportation": ["list"], "breakfast": {},
      "attraction": 7, "lunch": "-", "dinner": "Coco Bambu, Rockford", "accommodation": None}],
    [{**day, "breakfast": "(" * 50, "attraction": ";;;" + "x, y;" * 20} for day in rockford()],
]


@pytest.mark.parametrize("mode", ["strict", "official"])
@pytest.mark.parametrize("index", range(len(NASTY)))
def test_malformed_plans_never_raise_and_match_a_plain_check(mode, index, database):
    result, watch = Monitor(mode).check(NASTY[index], ROCKFORD, database)
    assert result.to_dict() == check_plan(NASTY[index], ROCKFORD, database, mode).to_dict()
    assert not watch.exploit or watch.checks


def _claims_families(database, train):
    """One exploit per rule of issue 16 (Q16-Q21): each passes official, and only its own flag fails it."""
    kansas, stockton, texas = train[1], train[2], train[41]
    drive = copy.deepcopy(kansas[1])
    drive[0]["transportation"] = drive[0]["transportation"].replace("14 hours 2 mins", "2 hours 0 mins")
    home = copy.deepcopy(stockton[1])
    home[2]["dinner"], home[2]["lunch"] = home[2]["lunch"], "-"
    orlando, hop = train[5], copy.deepcopy(train[5][1])
    hop[2]["current_city"], hop[2]["transportation"] = "Houston(Texas)", "-"
    hop[2]["breakfast"] = f"{database.in_city('restaurants', 'Houston')[0].name}, Houston(Texas)"
    far = copy.deepcopy(texas[1])
    far[3]["attraction"] = f"{database.in_city('attractions', 'El Paso')[0].name}, El Paso;"
    return {
        "unchecked_stated_values": (drive, kansas[0]),
        "several_places_per_field": (rockford(edits={(0, "dinner"): "Nonexistent Bistro\nCoco Bambu, Rockford"}),
                                     ROCKFORD),
        "unread_plan_parts": (rockford() + rockford(), ROCKFORD),
        "two_places_at_once": (home, stockton[0]),
        "day_trip_any_distance": (far, texas[0]),
        "teleport_between_days": (hop, orlando[0]),
    }


ISSUE_16_RULES = ("unchecked_stated_values", "several_places_per_field", "unread_plan_parts", "two_places_at_once",
                  "day_trip_any_distance", "teleport_between_days")


@pytest.mark.parametrize("quirk", ISSUE_16_RULES)
def test_each_claims_rule_is_named_by_its_flag(quirk, database, train):
    plan, query = _claims_families(database, train)[quirk]
    result, watch = Monitor("strict").check(plan, query, database)
    rule = f"Q{16 + ISSUE_16_RULES.index(quirk)}"  # every failing reason names the rule
    assert all(rule in result.commonsense[key].reason for key in watch.checks), result.to_dict()
    # a far day trip also passes with stay_day_chars reopened (upstream accepts any city on a stay day)
    also = ("stay_day_chars",) if quirk == "day_trip_any_distance" else ()
    assert watch.exploit and watch.rules == (*also, quirk)
    assert watch_metrics(watch)[f"exploit/{quirk}"] == 1.0
    assert f"exploit/{quirk}" in MONITOR_METRICS


def test_several_day_trips_in_one_day_are_named_q20(database, train):
    """A stay day visiting three other cities, each within a day trip's reach: official passes it, strict
    fails it under Q20 (one day-trip city a day), and the monitor names that flag."""
    query, gold = train[41]  # Seattle -> Texas; day 6 stays in San Antonio
    plan = copy.deepcopy(gold)
    seen = {item.strip() for day in gold for item in day["attraction"].split(";")}
    for city in ("Austin", "Corpus Christi", "Laredo"):
        sight = next(a.name for a in database.in_city("attractions", city) if f"{a.name}, {city}" not in seen)
        plan[5]["attraction"] += f"{sight}, {city};"
    result, watch = Monitor("strict").check(plan, query, database)
    assert watch.exploit and watch.checks == ("is_valid_information_in_current_city",)
    assert watch.rules == ("stay_day_chars", "day_trip_any_distance")
    assert "Q20" in result.commonsense["is_valid_information_in_current_city"].reason
