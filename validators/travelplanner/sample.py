"""The sample world the project ships: a few invented cities in the official CSV layout, with queries and
plans that pass and fail for visible reasons. It is the default for ``planshape evaluate``."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def sample_dir() -> Path:
    return Path(str(resources.files(__package__).joinpath("sample_world")))


def sample_database() -> Path:
    return sample_dir() / "database"


def sample_queries() -> Path:
    return sample_dir() / "queries.jsonl"


def sample_plans() -> Path:
    return sample_dir() / "plans.jsonl"
