"""The documents' blocks marked ``verifiers`` (they need verifiers installed, no GPU) run as written here, in its venv,
in the same prepared working directory as the core's docs test (tests/test_docs.py says what it holds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs_blocks import Block, assert_runs, marked, prepare_workdir

BLOCKS = marked("verifiers")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return prepare_workdir(tmp_path_factory.mktemp("docs"))


def test_the_docs_mark_blocks_for_this_suite() -> None:
    assert BLOCKS, "no block is marked verifiers: the mark is gone from the docs, or this test is stale"


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_marked_block_runs_as_written(block: Block, workdir: Path) -> None:
    assert_runs(block, workdir)
