"""The documents' fenced blocks, their marks, and how one runs as written (the rules: tests/test_docs.py)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.shared_data import SHARED, require_shared

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("adapters/*/examples/README.md"))]
FENCE = re.compile(r"(?:<!--\s*docs-test:\s*([^>]*?)\s*-->\n)?```(\w*)[^\n]*\n(.*?)```", re.S)
INLINE = re.compile(r"`(planshape [^`]+)`")
TRAINERS = ("verl", "trl", "openrlhf", "verifiers", "openenv")  # the suites with a venv of their own
NOT_RUN_HERE = ("gpu", "long", "setup", "serves", *TRAINERS)
LINKED = (".venv", "adapters", "tests", "validators")
BLOCK_TIMEOUT_S = 120


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is (file:line), its language, its mark (or ``""``) and its text."""

    where: str
    lang: str
    mark: str
    body: str

    def __str__(self) -> str:
        return f"{self.where} [{self.lang}{' ' + self.mark if self.mark else ''}]"


def blocks() -> list[Block]:
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start(2) if m.group(1) is None else m.start()) + 1
            found.append(Block(f"{path.relative_to(ROOT).as_posix()}:{line}", m.group(2), m.group(1) or "", m.group(3)))
    return found


def shell_lines(block: Block) -> list[str]:
    return [line.strip() for line in block.body.replace("\\\n", " ").splitlines() if line.strip()]


def prepare_workdir(where: Path) -> Path:
    """The working directory the documents assume, ``where/checkout`` (tests/test_docs.py says what it holds);
    a skip where ../shared/travelplanner is absent."""
    from planshape.shaping.facade import gold_answer, read_queries

    require_shared()
    from planshape.validators.travelplanner.plan.answer import extract_answer

    (where / "shared").symlink_to(SHARED.parent)  # ../shared, as beside a checkout
    where = where / "checkout"
    where.mkdir()
    for name in LINKED:
        (where / name).symlink_to(ROOT / name)
    (where / "train.csv").symlink_to(SHARED / "train.csv")
    (where / "validation.csv").symlink_to(SHARED / "train.csv")
    (where / "database").symlink_to(SHARED / "database")
    gold = [json.dumps({"idx": i, "plan": extract_answer(gold_answer(r))})
            for i, r in enumerate(read_queries(SHARED / "train.csv"))]
    (where / "PLANS.jsonl").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (where / "home").mkdir()
    _task_data(where / "data")
    for block in blocks():
        if block.mark.startswith("file "):
            (where / block.mark.removeprefix("file ").strip()).write_text(block.body, encoding="utf-8")
    return where


def own_files(block: Block, workdir: Path) -> None:
    """The files ``block``'s own document writes (its ``file NAME`` blocks), written again before it runs: two
    documents may show a file of the same name (README's ``planshape.json`` is not docs/serve.md's), and each
    block runs with its own document's, as written."""
    document = block.where.rsplit(":", 1)[0]
    for other in blocks():
        if other.mark.startswith("file ") and other.where.rsplit(":", 1)[0] == document:
            (workdir / other.mark.removeprefix("file ").strip()).write_text(other.body, encoding="utf-8")


def block_env(workdir: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(workdir / "home"), "MPLBACKEND": "Agg"}


def block_argv(block: Block, workdir: Path) -> list[str]:
    if block.lang == "python":
        script = workdir / "docs_block.py"
        script.write_text(block.body, encoding="utf-8")
        return [sys.executable, str(script)]
    return ["bash", "-euo", "pipefail", "-c", block.body]


def run_block(block: Block, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Run a bash or python block as written in ``workdir``, with this interpreter's bin first on PATH; whatever
    it started in the background is stopped with it (its own process group)."""
    own_files(block, workdir)
    argv = block_argv(block, workdir)
    process = subprocess.Popen(argv, cwd=workdir, env=block_env(workdir), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=BLOCK_TIMEOUT_S)
    finally:
        stop_group(process.pid)
    return subprocess.CompletedProcess(argv, process.wait(), out, err)


def stop_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass


def assert_runs(block: Block, workdir: Path) -> None:
    done = run_block(block, workdir)
    assert done.returncode == 0, f"{block} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def marked(mark: str) -> list[Block]:
    """The blocks with ``mark`` (an adapter suite runs those marked with its trainer's name)."""
    return [b for b in blocks() if b.mark == mark]


def _task_data(folder: Path) -> None:
    """Another task's own VERL data (docs/any-task.md): two prompt rows per split, where pyarrow is installed (the
    VERL suite; the blocks that read them run only there)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return
    folder.mkdir()
    rows = {"data_source": ["webshop", "webshop"], "prompt": [[{"role": "user", "content": "buy a red mug"}]] * 2}
    for split in ("train", "val"):
        pq.write_table(pa.table(rows), folder / f"{split}.parquet")
