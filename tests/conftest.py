"""Shared fixtures. Tests that need ``../shared/travelplanner`` skip with a reason where it is absent
(a user's clone); ``.ci/run`` refuses to run without it, so in CI they always run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tests.shared_data import require_shared

# Property tests draw the same examples on every run (a red CI is a bug, not a draw); PLANSHAPE_HYPOTHESIS=explore
# draws fresh ones, to hunt.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("PLANSHAPE_HYPOTHESIS", "repeatable"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return require_shared()


@pytest.fixture(scope="session")
def memory_database(shared_dir):
    from planshape.validators.travelplanner.store.database import load_database

    return load_database(shared_dir / "database")


def _store(kind: str, directory: Path, memory, tmp_path_factory):
    if kind == "memory":
        return memory
    from planshape.validators.travelplanner.store.sqlite import SqliteStore, build_store

    path = tmp_path_factory.mktemp("store") / "sandbox.sqlite"
    build_store(directory, path)
    return SqliteStore(path)


@pytest.fixture(scope="session", params=["memory", "sqlite"])
def database(request, shared_dir, memory_database, tmp_path_factory):
    """The shared database, served in memory and from its SQLite store: checks must agree on both."""
    return _store(request.param, shared_dir / "database", memory_database, tmp_path_factory)


@pytest.fixture(scope="session")
def train_records(shared_dir):
    from planshape.validators.travelplanner.query import read_records

    return read_records(shared_dir / "train.csv")


@pytest.fixture(scope="session")
def solved_train(train, memory_database):
    """(query, gold plan, the solver's solution) of the 45 train rows (the solver tests share one solve)."""
    pytest.importorskip("ortools", reason="the solver needs OR-Tools (scripts/setup.sh installs planshape[solver])")
    from planshape.validators.travelplanner.solver import solve

    return [(query, gold, solve(query, memory_database)) for query, gold in train]


@pytest.fixture(scope="session")
def train(train_records):
    """(query, gold plan) pairs of the 45 train rows."""
    from planshape.validators.travelplanner.query import Query, gold_plan

    return [(Query.from_record(r), gold_plan(r)) for r in train_records]


@pytest.fixture(scope="session", params=["memory", "sqlite"])
def sample_store(request, tmp_path_factory):
    from planshape.validators.travelplanner.sample import sample_database
    from planshape.validators.travelplanner.store.database import load_database

    return _store(request.param, sample_database(), load_database(sample_database()), tmp_path_factory)
