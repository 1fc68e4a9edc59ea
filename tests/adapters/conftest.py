"""Each adapter suite runs in its trainer's venv (``bash scripts/test.sh <trainer>``); anywhere else it is one
skipped item with the reason, the same for every suite, whether the folder is named on the command line or found
by collection. A suite folder is not even collected there, so nothing in it may assume its trainer at import
time beyond what this hook guards."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

TRAINERS = {"verl": "verl", "trl": "trl", "openrlhf": "openrlhf", "verifiers": "verifiers",
            "openenv": "openenv"}  # suite folder -> the package it needs
HERE = Path(__file__).resolve().parent


def missing_trainer(path: Path) -> str | None:
    """The trainer a suite folder needs when it is not importable here, else None."""
    suite = path.resolve()
    if suite.parent != HERE or suite.name not in TRAINERS:
        return None
    return None if importlib.util.find_spec(TRAINERS[suite.name]) else TRAINERS[suite.name]


class SkippedSuite(pytest.Directory):
    """A suite folder whose trainer is not installed: one skipping item per test file (so a file named on the
    command line skips too), saying how to run the suite."""

    def collect(self):
        for file in sorted(self.path.glob("test_*.py")):
            yield SuiteSkip.from_parent(self, name=file.name, path=file)


class SuiteSkip(pytest.Item):
    def runtest(self) -> None:
        suite = self.path.parent.name
        pytest.skip(f"{TRAINERS[suite]} is not installed here: the {suite} suite runs in .venv-{suite} "
                    f"(bash scripts/test.sh {suite})")

    def reportinfo(self):
        return self.path, None, self.name


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if missing_trainer(path) is None:
        return None
    return SkippedSuite.from_parent(parent, path=path)
