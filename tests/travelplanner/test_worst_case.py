"""Model output never raises out of ``check_plan`` or ``evaluate_all``, and costs time linear in its size
(issue 8). ``PLANSHAPE_FUZZ_EXAMPLES`` sets how many generated plans each property tries (default 1,000)."""

import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from planshape.validators.travelplanner.checks.verdicts import MAX_REASON, check_plan
from planshape.validators.travelplanner.evaluation.metrics import compute_metrics
from planshape.validators.travelplanner.evaluation.report import evaluate_all
from planshape.validators.travelplanner.evaluation.submission import Submitted, normalise, read_submission

from ..fuzz import timed
from .helpers import ROCKFORD, ROCKFORD_PLAN, rockford

EXAMPLES = int(os.environ.get("PLANSHAPE_FUZZ_EXAMPLES", "1000"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                             HealthCheck.too_slow])
KEYS = ["days", "current_city", "transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation"]

# What a policy writes: pieces of real plan strings, separators, look-alikes, and the parser's hard cases.
_real = sorted({v for day in ROCKFORD_PLAN for v in day.values() if isinstance(v, str)})
_pieces = st.sampled_from(_real + [
    "from ", " to ", "from", "to", ",", ", ", ";", "(", ")", "(Illinois)", "(S1)", " ", "  ", "\n", "\t", "\xa0",
    "\u2028", "-", "Flight Number: ", "F3573659", "flight number", "Self-driving", "self-driving", "Taxi", "taxi",
    "Rockford", "St. Petersburg", "Chicago", "Rоckford",  # the last with a Cyrillic o
    "ROCKFORD", "Flying Mango", "Free time", "You don't need to fill in the information for this or later days.",
])
_text = st.lists(_pieces, max_size=10).map("".join) | st.text(max_size=30)
_value = _text | st.none() | st.integers(-2, 10) | st.floats(allow_nan=True) | st.lists(_text, max_size=2) \
    | st.dictionaries(st.sampled_from(KEYS), _text, max_size=2)
_day = st.dictionaries(st.sampled_from(KEYS), _value, max_size=8) | st.fixed_dictionaries({k: _text for k in KEYS})
_edited = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(KEYS), _value), max_size=4).map(
    lambda edits: rockford(edits={(d, k): v for d, k, v in edits}))
plans = _edited | st.lists(_day, max_size=8) | _value


def _bounded(result) -> None:
    verdicts = [*result.commonsense.values(), *(result.hard or {}).values()]
    assert all(0 < len(v.reason) <= MAX_REASON for v in verdicts)
    assert len(result.note) <= MAX_REASON
    json.dumps(result.to_dict())


@FUZZ
@given(plan=plans)
def test_check_plan_never_raises_on_model_output(memory_database, plan):
    for mode in ("official", "strict"):
        result, seconds = timed(lambda: check_plan(plan, ROCKFORD, memory_database, mode))  # noqa: B023 - called now
        assert seconds < 1.0, f"{seconds:.3f} CPU s"  # the cost of one check; a plan takes milliseconds
        _bounded(result)


@pytest.fixture(scope="module")
def submission_file(tmp_path_factory):
    return tmp_path_factory.mktemp("submission") / "plans.jsonl"


@FUZZ
@given(plans=st.lists(plans | _text.map(lambda t: f"<answer>{t}</answer>"), min_size=1, max_size=3))
def test_evaluate_never_raises_on_model_output(memory_database, submission_file, plans):
    path = submission_file
    path.write_text("".join(json.dumps({"plan": p}, ensure_ascii=False) + "\n" for p in plans), encoding="utf-8")
    submitted = read_submission(path)
    assert len(submitted) == len(plans)
    report = evaluate_all(submitted, [ROCKFORD] * len(plans), memory_database, "strict", progress=False)
    assert len(report["plans"]) == len(plans)
    json.dumps(report)


def test_normalise_gates_structured_and_text_plans():
    assert normalise("not json").note.startswith("schema:")
    assert normalise([{"city": {"stay": "X"}}]).plan is None  # a structured plan that fails the schema


_CJK = "".join(map(chr, range(0x4E00, 0x4E00 + 40_000)))
# Inputs on which upstream's parsing backtracks (seconds to minutes at 100,000 characters) or its repeat
# checks go quadratic, each placed where a check reads it. Every one must now cost time linear in its size:
# well under the 2 CPU-second bound below, where the regexes took 7 s to over 45 s.
STALLS = {
    "current_city 'from ' x 20,000": {(1, "current_city"): "from " * 20_000},
    "current_city 'from' + 100,000 spaces": {(1, "current_city"): "from" + " " * 100_000 + "x"},
    "current_city '(' x 100,000": {(1, "current_city"): "(" * 100_000},
    "transportation 'from ' x 20,000": {(1, "transportation"): "from " * 20_000},
    "travel day 'from a\\n' x 14,000": {(0, "current_city"): "from a\n" * 14_000 + " to b"},
    "breakfast '(' x 100,000": {(1, "breakfast"): "a, " + "(" * 100_000},
    "breakfast ', (a' x 33,000 after a newline": {(1, "breakfast"): "\n" + ", (a" * 33_000},
    "attraction 30,000 distinct items": {(1, "attraction"): "".join(f"Sight {i}, Rockford;" for i in range(30_000))},
    "attraction 30,000 repeats of one item": {(1, "attraction"): "Sinnissippi Park, Rockford;" * 30_000},
    # official tests each character of a stay day's city against the transport text (Q1): one scan per character
    "stay-day city 40,000 distinct characters": {(1, "current_city"): _CJK, (1, "transportation"): _CJK[::-1]},
}


@pytest.mark.parametrize("name", sorted(STALLS))
def test_known_stall_inputs_are_checked_fast(database, name):
    plan = rockford(edits=STALLS[name])
    for mode in ("official", "strict"):
        result, elapsed = timed(lambda: check_plan(plan, ROCKFORD, database, mode))  # noqa: B023 - called now
        assert elapsed < 2.0, f"{name} ({mode}): {elapsed:.2f} CPU s"
        assert not result.final_pass


def test_numpy_array_plan_is_checked_like_a_list(database):
    """A parquet row read through pandas gives the plan as a numpy array of day dicts."""
    plan = np.array(rockford(), dtype=object)
    assert check_plan(plan, ROCKFORD, database, "strict").to_dict() == \
        check_plan(rockford(), ROCKFORD, database, "strict").to_dict()
    assert not check_plan(np.array([], dtype=object), ROCKFORD, database).delivered
    assert "not a list of days" in check_plan(np.array(5), ROCKFORD, database).note
    results = [check_plan(plan, ROCKFORD, database, "official")]
    assert compute_metrics([ROCKFORD], results)["rates"]["final_pass_rate"] == 1.0


def test_store_answers_unknown_cities_without_caching_them(database):
    city = "Rockford" * 10_000
    cached = database._city.cache_info().currsize if hasattr(database, "_city") else None
    assert database.places("restaurants", "x", city) == [] and database.in_city("attractions", city) == []
    if cached is not None:
        assert database._city.cache_info().currsize == cached


def test_submitted_note_of_an_undelivered_plan_is_reported(memory_database):
    report = evaluate_all([Submitted(None, "line 3: JSON nested too deeply")], [ROCKFORD], memory_database,
                          progress=False)
    assert report["plans"][0]["note"] == "line 3: JSON nested too deeply"
