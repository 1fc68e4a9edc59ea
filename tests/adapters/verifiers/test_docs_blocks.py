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


def test_the_eval_example_runs_from_the_checkout_root(workdir: Path, tmp_path: Path) -> None:
    """``vf-eval @ adapters/verifiers/examples/eval.toml`` as docs/environments.md runs it, from the checkout root
    (relative paths are the root's, though verifiers starts the toolset elsewhere), against a scripted model; with
    ``validation.csv`` missing it fails with the one line naming the file and where the split comes from."""
    import os
    import subprocess
    import sys

    from ...rollout.scripted_server import ScriptedServer

    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "OPENAI_API_KEY": "EMPTY", "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}

    def vf_eval(where: Path, base_url: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(bin_dir / "vf-eval"), "@", "adapters/verifiers/examples/eval.toml", "-m",
                               "scripted", "--client.base-url", base_url, "--client.api-key-var", "OPENAI_API_KEY",
                               "--no-push", "-o", str(tmp_path / "runs"), "--no-rich", "-n", "2"], cwd=where, env=env,
                              capture_output=True, text=True, timeout=900)

    with ScriptedServer(lambda request, attempt: {"content": "no plan"}) as server:
        run = vf_eval(workdir, server.base_url)
        assert run.returncode == 0, run.stderr[-3000:]
        (traces,) = (tmp_path / "runs").glob("*/traces.jsonl")
        assert len(traces.read_text().splitlines()) == 2
        bare = tmp_path / "bare"  # the checkout without validation.csv
        bare.mkdir()
        for entry in workdir.iterdir():
            if entry.name != "validation.csv":
                (bare / entry.name).symlink_to(entry)
        run = vf_eval(bare, server.base_url)
    assert run.returncode != 0
    assert "validation.csv: no such query file; TravelPlanner's train, validation and test queries are the " \
           "Hugging Face dataset osunlp/TravelPlanner" in run.stderr
