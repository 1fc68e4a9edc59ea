"""The docs cannot drift from the code: every command line and code block in README.md, docs/ and the adapters'
example READMEs runs as written, here, on the bundled sample world and ../shared/travelplanner's files.

How it runs: one working directory per test module holds what the documents name, as a checkout with ``../shared``
beside it (linked): ``train.csv`` and ``validation.csv`` (both TravelPlanner's 45-row train split, from
../shared/travelplanner), ``database/`` (its database), ``PLANS.jsonl`` (the gold plans of train.csv, as answer
JSON), ``home/`` (``$HOME``, so ``~/...`` lands here), ``data/{train,val}.parquet`` (another task's data,
docs/any-task.md; written where pyarrow is, the VERL suite), links to the repository's ``.venv``, ``adapters/``,
``tests/`` and ``validators/`` (never ``pyproject.toml`` or ``scripts/``: nothing here may reinstall the package),
and every block marked ``file NAME``. Each ``bash`` block runs there with ``bash -euo pipefail`` (this interpreter's
bin first on PATH) and must exit 0; each ``python`` block runs there as a script in a fresh interpreter and must
exit 0; ``yaml``/``json``/``toml`` blocks must parse. 20-50 s on 2 cores.

The convention that marks a block: an HTML comment on the line right above its fence, ``<!-- docs-test: MARK -->``
(invisible in rendered Markdown). Marks:

- ``file NAME``: the block is a file the text writes (a config); it is written to NAME in the working directory
  before anything runs, and commands use it; before each block runs, its own document's files are written again
  (two documents may show different files of one name: each block runs with its own document's).
- ``gpu``: needs GPUs, a cluster (paths such as ``/shared/...``) or a served model. Not run: its ``planshape``
  lines parse with the real CLI parser and its Python imports exist (below); the launch scripts such blocks start
  are composed by the adapter suites (``tests/adapters/verl/test_check.py`` runs every VERL script's overrides
  through ``planshape verl check``; ``tests/adapters/verl/test_documented_launches.py`` takes every VERL launch the
  documents show, as written: the preflight refuses the values they say to fill in, and filled in, their reward
  scores the 45 gold plans; ``tests/adapters/openrlhf/test_openrlhf_examples.py`` parses every OpenRLHF
  launch with OpenRLHF's parser; ``tests/adapters/trl/test_example.py`` parses the TRL configs and runs
  ``train_planner.py --tiny``). A block's other lines (a bare override list, ``ray job submit``) are not checked.
- ``verl`` / ``trl`` / ``openrlhf`` / ``verifiers`` / ``openenv``: needs that trainer (or environment standard)
  installed (CPU). Run by that adapter's suite, in its venv (``tests/adapters/<name>/test_docs_blocks.py``,
  OpenRLHF's ``test_openrlhf_docs_blocks.py``), the same way and in the same kind of working directory
  (``tests/docs_blocks.py``).
- ``serves``: a server that runs until stopped: started here, alive (listening) after its start-up, then stopped.
- ``long``: the benchmarks (minutes each at their sizes) and the property tests' hunts with fresh draws. Not run by
  any suite: each benchmark is a script that prints its ratio against a baseline run in the same process; run them
  by hand. (``planshape db synth`` is shown with
  ``--rows``, small, and runs here.)
- ``setup``: installs or sets up (``scripts/main.sh``, ``scripts/test.sh``, ``pip install -e``): what CI itself
  runs (``bash .ci/run`` is ``scripts/test.sh``, which runs ``scripts/setup.sh``; this test is part of it).

Nothing else is skipped: an unmarked block runs, and a mark not listed above fails the test.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import shlex
import socket
import subprocess
import time
from pathlib import Path

import pytest
import tomllib
import yaml
from planshape.shaping.cli import build_parser

from tests.docs_blocks import (
    DOCS,
    INLINE,
    NOT_RUN_HERE,
    ROOT,
    Block,
    assert_runs,
    block_argv,
    block_env,
    blocks,
    own_files,
    prepare_workdir,
    shell_lines,
    stop_group,
)

SERVER_START_S = 20


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return prepare_workdir(tmp_path_factory.mktemp("docs"))


RUNNABLE = [b for b in blocks() if b.lang in ("bash", "sh", "python") and not b.mark.startswith(NOT_RUN_HERE)
            and not b.mark.startswith("file ")]


@pytest.mark.parametrize("block", RUNNABLE, ids=str)
def test_every_unmarked_block_runs_as_written(block: Block, workdir: Path) -> None:
    assert_runs(block, workdir)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("block", [b for b in blocks() if b.mark == "serves"], ids=str)
def test_every_server_block_starts_and_keeps_serving(block: Block, workdir: Path) -> None:
    own_files(block, workdir)
    server = subprocess.Popen(block_argv(block, workdir), cwd=workdir, env=block_env(workdir), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    port = int(re.search(r"--port (\d+)", block.body).group(1))
    try:
        deadline = time.monotonic() + SERVER_START_S
        while not _listening(port):
            assert server.poll() is None and time.monotonic() < deadline, f"{block}: not serving on port {port}"
            time.sleep(0.2)
        assert server.poll() is None
    finally:
        stop_group(server.pid)
        output = server.communicate(timeout=30)[0]
    assert "Traceback" not in output, output


@pytest.mark.parametrize("block", [b for b in blocks() if b.lang in ("yaml", "json", "toml")], ids=str)
def test_every_data_block_parses(block: Block) -> None:
    if block.lang == "yaml":
        yaml.safe_load(block.body)
    elif block.lang == "json":
        json.loads(block.body)
    else:
        tomllib.loads(block.body)


def test_every_mark_is_known() -> None:
    unknown = [str(b) for b in blocks() if b.mark and not b.mark.startswith((*NOT_RUN_HERE, "file "))]
    assert unknown == []


def test_every_block_is_in_a_language_this_test_handles() -> None:
    """A block in another language would pass unseen: only those the module docstring names (and ``text``)."""
    assert [str(b) for b in blocks() if b.lang not in ("bash", "sh", "python", "yaml", "json", "toml", "text")] == []


def _argv(line: str) -> list[str]:
    """A documented command as argv: the trailing comment, ``<placeholders>`` and a synopsis's ``[options]`` go;
    upper-case placeholders become values the parser accepts (``N`` a number, others a name)."""
    line = re.sub(r"\s+#\s.*$", "", line)
    line = re.sub(r"<[^>]*>", "", line).split(" [")[0]
    return ["1" if w in ("N", "K", "S") else w for w in shlex.split(line)]


def _commands() -> list[tuple[str, str]]:
    """Every ``planshape`` line of a block not run here, and every inline ``planshape ...`` span in prose."""
    shown = [(b.where, line.removeprefix(".venv/bin/")) for b in blocks() if b.mark.startswith(NOT_RUN_HERE)
             and b.lang in ("bash", "sh") for line in shell_lines(b)
             if line.removeprefix(".venv/bin/").startswith("planshape ")]
    for path in DOCS:
        shown += [(path.relative_to(ROOT).as_posix(), m.group(1)) for m in INLINE.finditer(path.read_text())]
    return shown


@pytest.mark.parametrize(("where", "line"), _commands(), ids=lambda v: v[:60])
def test_every_documented_command_not_run_here_parses(where: str, line: str) -> None:
    """Inline spans name a command (``planshape verl check``) or show one with its flags; both must exist."""
    argv = [w for w in _argv(line)[1:] if w != "..."]
    if not any(w.startswith("-") or "." in w or "/" in w for w in argv):  # a command named in prose: it exists
        with pytest.raises(SystemExit) as shown:
            build_parser().parse_args([*argv, "--help"])
        assert shown.value.code == 0, f"{where}: `{line}` names no planshape command"
        return
    argv = argv[:argv.index("--")] if "--" in argv else argv  # what follows `--` is the trainer's
    try:
        args = build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"{where}: `{line}` does not parse with planshape's CLI")
    assert callable(args.func)


@pytest.mark.parametrize("block", [b for b in blocks() if b.lang == "python" and b.mark.startswith(NOT_RUN_HERE)],
                         ids=str)
def test_every_python_block_not_run_here_imports_what_exists(block: Block) -> None:
    for node in ast.walk(ast.parse(block.body, filename=block.where)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("planshape"):
            trainer = node.module.split(".")[2] if node.module.startswith("planshape.adapters.") else None
            if trainer is not None and importlib.util.find_spec(trainer) is None:
                continue  # its trainer's suite runs it (or composes it, for a GPU block)
            module = importlib.import_module(node.module)
            assert not [a.name for a in node.names if not hasattr(module, a.name)], block


@pytest.mark.parametrize("span", sorted({m.group(1) for path in DOCS for m in re.finditer(
    r"`(?:python3?|bash) ([\w./-]+\.(?:py|sh))[^`]*`", path.read_text(encoding="utf-8"))}))
def test_every_script_named_inline_exists(span: str) -> None:
    """Prose names scripts (``python benchmarks/bench_batch.py``, ``bash scripts/test.sh core``): they exist."""
    assert (ROOT / span).is_file(), span
