"""Planner-R1's 180/45 re-split, offered to every adapter through the facade's ``split_queries``."""

from collections import Counter

import pytest
from planshape.shaping.facade import split_queries


def test_the_split_is_stratified_and_seeded():
    records = [{"level": lvl, "n": i} for i, lvl in enumerate(["easy"] * 6 + ["medium"] * 3 + ["hard"] * 1)]
    train, val = split_queries(records, 5, seed=1)
    # quotas 3, 1.5, 0.5: floors 3, 1, 0, and the one left goes to a largest remainder (ties by name)
    assert Counter(r["level"] for r in val) == Counter({"easy": 3, "medium": 1, "hard": 1})
    assert (train, val) == split_queries(records, 5, seed=1) and len(train) == 5
    assert sorted(r["n"] for r in train + val) == list(range(10))
    with pytest.raises(ValueError, match="outside 0..10"):
        split_queries(records, 11, seed=1)


def test_planner_r1_sizes_from_the_official_splits():
    records = [{"level": ["easy", "medium", "hard"][i % 3], "n": i} for i in range(225)]
    train, val = split_queries(records)
    assert (len(train), len(val)) == (180, 45)
    assert Counter(r["level"] for r in val) == Counter({"easy": 15, "medium": 15, "hard": 15})


def test_a_split_that_leaves_no_training_rows_is_refused_with_the_fix():
    """``prepare-data train.csv`` (45 queries) with the default 45 validation rows used to write 0 training rows."""
    records = [{"level": "easy", "n": i} for i in range(45)]
    with pytest.raises(ValueError, match=r"leaves no training rows: pass a smaller --val-size \(--val-size 0"):
        split_queries(records)
    assert split_queries(records, 0) == (split_queries(records, 0)[0], [])
    assert len(split_queries(records, 0)[0]) == 45
