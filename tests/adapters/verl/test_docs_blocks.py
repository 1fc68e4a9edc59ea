"""The documents' blocks marked ``verl`` (they need VERL installed, no GPU) run as written here, in VERL's venv,
in the same prepared working directory as the core's docs test (tests/test_docs.py says what it holds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs_blocks import Block, assert_runs, marked, prepare_workdir

BLOCKS = marked("verl")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return prepare_workdir(tmp_path_factory.mktemp("docs"))


def test_the_docs_mark_blocks_for_this_suite() -> None:
    assert BLOCKS, "no block is marked verl: the mark is gone from the docs, or this test is stale"


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_marked_block_runs_as_written(block: Block, workdir: Path) -> None:
    from planshape.adapters.verl.support import SUPPORT, TRAINER

    if "trainer.v1." in block.body and not SUPPORT.has(TRAINER):
        pytest.skip(SUPPORT.gate(TRAINER))  # a block that selects a planshape V1 trainer runs on 0.9
    assert_runs(block, workdir)
