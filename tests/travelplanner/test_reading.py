"""Strict's tolerant reader (``reading.py``): every shape of issue 33 reads as what it states, nothing a model writes
raises, and honest variants of the gold plans, in both answer formats, pass strict at the maximum reward."""

from __future__ import annotations

import copy
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from planshape.shaping.reward import Scorer
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.plan.answer import answer_text
from planshape.validators.travelplanner.plan.formats import from_upstream
from planshape.validators.travelplanner.reading import (
    MAX_TEXT,
    read_current_city,
    read_place,
    read_transport,
)

from tests.fuzz import timed

from .helpers import ROCKFORD, ROCKFORD_PLAN, rockford

# (text, modes, legs, values) for each shape issue 33 lists, and the canonical string for reference.
SHAPES = [
    ("self-driving from A to B", ("self-driving",), (("A", "B"),), {}),
    ("taxi from A to B", ("taxi",), (("A", "B"),), {}),
    ("Self-driving, from A to B, Duration: 6 hours 17 mins, Distance: 634 km, Cost: 31", ("self-driving",),
     (("A", "B"),), {"duration": 377, "distance": 634, "cost": 31}),
    ("Self-driving, from A to B, Duration: 6 hours 17 mins, Distance: 634 km", ("self-driving",), (("A", "B"),),
     {"duration": 377, "distance": 634}),
    ("Self-driving from A to B, duration: 7 hours 38 mins, distance: 845 km, Cost: 42", ("self-driving",),
     (("A", "B"),), {"duration": 458, "distance": 845, "cost": 42}),
    ("Distance: 1,433 km", (), (), {"distance": 1433}),
    ("Self-driving, Duration: 6 hours 17 mins, Cost: 31", ("self-driving",), (), {"duration": 377, "cost": 31}),
    ("Taxi, from A to B, Duration: 24 mins, Cost: 30", ("taxi",), (("A", "B"),), {"duration": 24, "cost": 30}),
    ("Flight Number: F123, from A to B, Departure Time: 10:50, Arrival Time: 14:22, Cost: 340", ("flight",),
     (("A", "B"),), {"flight_number": "F123", "departure_time": 650, "arrival_time": 862, "cost": 340}),
    ("Self-driving, from A to B, duration: 14 hours 2 mins, distance: 1,433 km, cost: 71 ", ("self-driving",),
     (("A", "B"),), {"duration": 842, "distance": 1433, "cost": 71}),
    ("Self-driving, from A to B, duration: 14 hours 2 minutes", ("self-driving",), (("A", "B"),), {"duration": 842}),
    ("Self-driving, from A to B, cost: $71", ("self-driving",), (("A", "B"),), {"cost": 71}),
    ("Flight Number: F1, from A to B, Departure Time: 15:40:00", ("flight",), (("A", "B"),),
     {"flight_number": "F1", "departure_time": 940}),
    ("Self-driving, from A to B, duration: 14 hrs 2 mins", ("self-driving",), (("A", "B"),), {"duration": 842}),
    ("Self-driving, from A  to B", ("self-driving",), (("A", "B"),), {}),
    ("flight number: F3573659, from A to B", ("flight",), (("A", "B"),), {"flight_number": "F3573659"}),
    ("FLIGHT NUMBER F3573659 FROM A TO B DEPARTURE TIME 15:40 ARRIVAL TIME 17:04.", ("flight",), (("A", "B"),),
     {"flight_number": "F3573659", "departure_time": 940, "arrival_time": 1024}),
    ("Self-drive from A to B (6 h 17 min, 634 kilometers, $31 per person)", ("self-driving",), (("A", "B"),),
     {"duration": 377, "distance": 634, "cost": 31}),
    ("Flight F3573659, from A to B, DepTime: 15:40, ArrTime: 17:04, FlightDate: March 16, 2022", ("flight",),
     (("A", "B"),), {"flight_number": "F3573659", "departure_time": 940, "arrival_time": 1024, "date": "2022-03-16"}),
    # fields reversed, commas dropped: the mode after the leg ends it (the hypothesis test found it)
    ("cost: 71 distance: 1,433 km duration: 14 hours 2 mins from Kansas City to Pensacola Self-driving",
     ("self-driving",), (("Kansas City", "Pensacola"),), {"duration": 842, "distance": 1433, "cost": 71}),
    ("from A to B taxi", ("taxi",), (("A", "B"),), {}),
]


@pytest.mark.parametrize(("text", "modes", "legs", "values"), SHAPES, ids=[s[0][:50] for s in SHAPES])
def test_every_listed_shape_reads_as_what_it_states(text, modes, legs, values):
    read = read_transport(text)
    assert read is not None and read.modes == modes and read.legs == legs, read
    assert {k: v.value for k, v in read.values.items()} == values, read
    assert not read.wrong and not read.unread, read


def test_a_remark_states_nothing_and_a_second_mode_or_leg_is_read():
    read = read_transport("Self-driving, from A to B, cost: 40 (gas and tolls)")
    assert read.unread == ("gas and tolls",) and read.value("cost") == 40
    assert read_transport("Flight Number: F1, from A to B, Self-driving to the airport").modes == ("flight",
                                                                                                   "self-driving")
    assert read_transport("Bus from A to B").other_modes == ("bus",)
    assert len(read_transport("Flight Number: F1, from A to B; Flight Number: F2, from B to C").legs) == 2
    assert read_transport("Departure Time: 15:4\u2070").wrong == (("departure_time", "15:4\u2070"),)


PLACES = [
    ("Coco  Bambu ,  Rockford", "Coco Bambu", "Rockford", {}),
    ("Romare Bearden Park, Charlotte.", "Romare Bearden Park", "Charlotte", {}),
    ("Coco Bambu, Rockford(Illinois)", "Coco Bambu", "Rockford", {"state": "Illinois"}),
    ("Shokitini, Buffalo(New York)", "Shokitini", "Buffalo", {"state": "New York"}),
    ("The Zuree Urban Kitchen, Buffalo: $50", "The Zuree Urban Kitchen", "Buffalo", {"cost": 50}),
    ("Side Wok, Bozeman (Indian cuisine)", "Side Wok", "Bozeman", {"cuisines": ("Indian",)}),
    ("Peaceful, beautiful home, Boston, Cost: 321 for 3 nights", "Peaceful, beautiful home", "Boston",
     {"cost": 321, "nights": 3}),
    ("Cozy Room, Portland (Price: 587, Room type: Private room, Minimum nights: 1, Pet-friendly)", "Cozy Room",
     "Portland", {"cost": 587, "room_type": "Private room", "numbers": (("minimum_nights", 1.0),),
                  "allows": ("No pets",)}),
    ("The Maryland Zoo in Baltimore (morning visit)", "The Maryland Zoo in Baltimore", None, {}),
]


@pytest.mark.parametrize(("text", "name", "city", "values"), PLACES, ids=[p[0][:40] for p in PLACES])
def test_a_place_reads_its_name_its_city_and_what_it_states(database, text, name, city, values):
    read = read_place(text, frozenset(database.city_state), frozenset(database.city_state.values()))
    assert (read.name, read.city) == (name, city), read
    assert {k: getattr(read, k) for k in values} == values, read


def test_a_days_city_reads_as_a_leg_in_any_spelling(database):
    cities = frozenset(database.city_state)
    for text in ("from Rockford to Chicago", "From  Rockford To Chicago.", "Rockford to Chicago", "Rockford -> Chicago",
                 "from Rockford, IL to Chicago"):
        assert read_current_city(text, cities) == "from Rockford to Chicago", text
    assert read_current_city("Rockford.", cities) == "Rockford"
    assert read_current_city("from Rockford to Nowhere", cities) == "from Rockford to Nowhere"  # left to the route


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=MAX_TEXT + 20))
def test_nothing_a_model_writes_raises(text):
    read_transport(text)
    read_place(text, frozenset({"Rockford", "New York"}), frozenset({"Illinois", "New York"}))
    read_current_city(text, frozenset({"Rockford"}))


def test_reading_is_linear_in_the_text():
    for text in ("from " * 120, "1" * 600, "Flight Number: F1, " * 30, "a, " * 200, "( " * 300):
        _, cpu = timed(lambda t=text: (read_transport(t + "x"), read_place(t + "y", frozenset(), frozenset())))
        assert cpu < 0.05, (text[:20], cpu)


# ------------------------------------------------------------------------------ honest variants of the gold plans

OPTIONAL = ("duration", "distance", "Departure", "Arrival", "cost")


def _optional_dropped(text: str) -> str:
    """The comma-separated fields a string may leave out, left out (a string without commas is one field: kept)."""
    parts = text.split(", ")
    return text if len(parts) == 1 else ", ".join(p for p in parts if not p.startswith(OPTIONAL))


def _variants(text: str) -> dict[str, str]:
    """Honest rewritings of a canonical transport string: the form changes, nothing it states does."""
    out = {
        "labels in other case": re.sub(r"(Flight Number|Departure Time|Arrival Time|duration|distance|cost):",
                                       lambda m: m[1].upper() + ":", text),
        "trailing space": text + " ",
        "no commas": text.replace(", ", " "),
        "double spaces": text.replace(" ", "  "),
        "trailing period": text + ".",
        "leading mode in lower case": text.replace("Self-driving", "self-driving").replace("Taxi", "taxi"),
        "unit words": text.replace(" mins", " minutes").replace(" hours", " hrs").replace(" km", " kilometers"),
        "dollar cost": re.sub(r"cost: (\d+)", r"cost: $\1", text),
        "seconds": re.sub(r"(\d\d:\d\d)", r"\1:00", text),
        "fields reordered": ", ".join(reversed(text.split(", "))),
        "optional fields dropped": _optional_dropped(text),
        "leg without a comma": text.replace("Self-driving, from", "Self-driving from").replace("Taxi, from",
                                                                                                  "Taxi from"),
    }
    return {name: value for name, value in out.items() if value != text}


def _gold_with(plan: list[dict], variant: str) -> list[dict]:
    out = copy.deepcopy(plan)
    for day in out:
        if isinstance(day.get("transportation"), str) and day["transportation"] not in ("-", ""):
            day["transportation"] = _variants(day["transportation"]).get(variant, day["transportation"])
    return out


VARIANTS = sorted(_variants("Self-driving, from A to B, duration: 1 hours 2 mins, distance: 3 km, cost: 4"
                            ", Departure Time: 10:00, Flight Number: F1"))


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_honest_variant_of_every_gold_plan_passes_strict(variant, train, memory_database):
    failing = []
    for k, (query, gold) in enumerate(train):
        result = check_plan(_gold_with(gold, variant), query, memory_database, "strict")
        if not result.final_pass:
            failing.append((k, {n: v.reason for n, v in result.commonsense.items() if not v.passed}))
    assert not failing, failing[:2]


def _structured(plan: list[dict]) -> list[dict]:
    return from_upstream([d for d in plan if d])


STRUCTURED = {
    "spaces around cities": lambda t, c: ({**t, "from": f" {t['from']} ", "to": f"  {t['to']}"},
                                          {k: f" {v} " for k, v in c.items()}),
    "unit words": lambda t, c: ({**t, **({"duration": t["duration"].replace("mins", "minutes").replace("hours", "hrs")}
                                        if "duration" in t else {}),
                                 **({"distance": t["distance"].replace(" km", " kilometers")} if "distance" in t
                                    else {})}, c),
    "seconds in times": lambda t, c: ({**t, **{k: f"{t[k]}:00" for k in ("departure_time", "arrival_time") if k in t}},
                                      c),
    "optional fields dropped": lambda t, c: ({k: v for k, v in t.items() if k in ("mode", "flight_number", "from",
                                                                                    "to")}, c),
}


@pytest.mark.parametrize("variant", sorted(STRUCTURED))
def test_each_honest_structured_variant_keeps_the_maximum_reward(variant, train, memory_database):
    scorer = Scorer(memory_database, mode="strict", schedule="stage1")
    for query, gold in train:
        days = _structured(gold)
        for day in days:
            if day["transportation"] is not None:
                day["transportation"], day["city"] = STRUCTURED[variant](day["transportation"], day["city"])
        score = scorer.score(answer_text(days), query)
        assert score.reward == 5.0, (variant, score.failure, score.reason)


def test_the_first_gold_plan_with_flight_number_in_any_case_passes_strict(memory_database):
    plan = rockford(edits={(0, "transportation"): ROCKFORD_PLAN[0]["transportation"].replace("Number", "number")})
    assert check_plan(plan, ROCKFORD, memory_database, "strict").final_pass


# ------------------------------------------------------------------------------ the property: form never fails

FORM_EDITS = st.lists(st.sampled_from(VARIANTS), min_size=1, max_size=4, unique=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(k=st.integers(0, 44), edits=FORM_EDITS, seed=st.randoms(use_true_random=False))
def test_mutating_a_gold_plans_form_keeps_strict_passing(train, memory_database, k, edits, seed):
    query, gold = train[k]
    plan = copy.deepcopy(gold)
    for day in plan:
        text = day.get("transportation")
        if isinstance(text, str) and text not in ("-", ""):
            for edit in edits:
                text = _variants(text).get(edit, text)
            day["transportation"] = text
        for key in ("breakfast", "lunch", "dinner", "accommodation"):
            if isinstance(day.get(key), str) and day[key] != "-" and seed.random() < 0.5:
                name, _, city = day[key].rpartition(",")
                day[key] = seed.choice([f"{name} ,  {city}", f"{name},{city}.", f"  {name},   {city}  "])
    result = check_plan(plan, query, memory_database, "strict")
    assert result.final_pass, (k, edits, json.dumps({n: v.reason for n, v in result.commonsense.items()
                                                     if not v.passed}))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(k=st.integers(0, 44), edits=st.lists(st.sampled_from(sorted(STRUCTURED)), min_size=1, max_size=4, unique=True),
       places=st.booleans())
def test_mutating_a_structured_gold_answers_form_keeps_the_maximum_reward(train, memory_database, k, edits, places):
    """The structured (Planner-R1) answer: spacing around every text field, unit words, seconds, optional
    transport fields dropped, in any combination: the reward stays 5 (stage 1, dense)."""
    query, gold = train[k]
    days = _structured(gold)
    for day in days:
        if day["transportation"] is not None:
            for edit in edits:
                day["transportation"], day["city"] = STRUCTURED[edit](day["transportation"], day["city"])
        if places:
            for key in ("breakfast", "lunch", "dinner", "accommodation"):
                if day[key] is not None:
                    day[key] = {"city": f" {day[key]['city']}  ", "name": f"  {day[key]['name']} "}
    score = Scorer(memory_database, mode="strict", schedule="stage1").score(answer_text(days), query)
    assert score.reward == 5.0, (k, edits, places, score.failure, score.reason)
