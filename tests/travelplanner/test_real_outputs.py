"""Real model outputs (``data/real_outputs``: GPT-4, GPT-3.5, Gemini and Mistral-7B plans for the validation
queries, and upstream's example outputs): strict fails no honest plan for its form.

Every check verdict that official passes and strict fails, and every plan official passes that strict fails,
carries a category of its reason; the form category (``unreadable``) stays empty. The counts are docs/testing.md's
(``python -m tests.travelplanner.real_outputs counts --write`` regenerates both when strict's verdicts change).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from planshape.validators.travelplanner.checks.categories import CATEGORIES, FORM
from planshape.validators.travelplanner.store.database import load_database

from .real_outputs import COUNTS, load, measure, table, validation_database, validation_queries

DOCS = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


@pytest.fixture(scope="module")
def measured(shared_dir, tmp_path_factory):
    if not (shared_dir / "validation" / "queries.jsonl").is_file():
        pytest.skip(f"the validation queries are not at {shared_dir / 'validation'}")
    store = load_database(validation_database(tmp_path_factory.mktemp("real-outputs")))
    return measure(load(), store, validation_queries())


def test_every_strict_only_failure_has_its_category_and_none_is_form(measured):
    assert measured.plans > 6000 and measured.official_pass > 20
    assert measured.uncategorised == []
    assert set(measured.by_category) <= set(CATEGORIES)
    assert {c: measured.by_category[c] for c in FORM} == dict.fromkeys(FORM, 0)
    for idx, sources, failed in measured.strict_only:
        assert failed, (idx, sources)
        assert all(category in CATEGORIES and category not in FORM for _, category in failed.values()), failed


def test_the_counts_are_the_documented_ones(measured):
    assert measured.counts() == json.loads(COUNTS.read_text())
    assert table(measured) in DOCS.read_text(), "docs/testing.md's table is not the measured one"
