"""The docs cannot drift from the code: every ``planshape`` command line in README.md, docs/ and the adapters'
example READMEs parses with the real CLI parser (the argument shape they show is the one that exists), every
Python block compiles and every name it imports from planshape exists, and every other shell line is either a
command this repository runs in its own tests or a launch line explicitly listed here as GPU-only (those are
composed and checked by the adapter suites: ``tests/adapters/verl/test_check.py`` runs every VERL script's
overrides through ``planshape verl check``; ``tests/adapters/openrlhf/test_openrlhf_examples.py`` parses every
OpenRLHF launch with OpenRLHF's own parser; ``tests/adapters/trl/test_example.py`` parses the TRL configs).

Not covered yet: executing each block as written (most Python blocks are sketches over names they do not
define), and inline code spans other than ``planshape`` commands."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import shlex
from pathlib import Path

import pytest
from planshape.shaping.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("adapters/*/examples/README.md"))]
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)
INLINE = re.compile(r"`(planshape [^`]+)`")
GPU_ONLY = ("accelerate launch", "ray job submit", "python3 -m verl.trainer.main_ppo",
            "bash adapters/verl/examples/run_", "PLANSHAPE_DATABASE=", "PLANSHAPE_DIR=", "algorithm.adv_estimator=")
"""Launch lines that need GPUs (or a cluster): composed and checked by the adapter suites, not run here."""
ADAPTER_SUITES = ("python adapters/trl/examples/train_planner.py --tiny",)
"""CPU lines that need a trainer installed: run by that adapter's suite (TRL: ``test_example.py``)."""
LOCAL = ("bash scripts/", ".venv/bin/python benchmarks/", ".venv-verl/bin/python benchmarks/", "pip install", "cp ",
         "EXAMPLES=", "#")
"""Shell lines the repository runs itself (CI scripts, benchmarks, installs) or that only copy files."""


def _blocks() -> list[tuple[str, str, str]]:
    return [(path.relative_to(ROOT).as_posix(), m.group(1), m.group(2)) for path in DOCS
            for m in FENCE.finditer(path.read_text(encoding="utf-8"))]


def _shell_lines() -> list[tuple[str, str]]:
    lines = []
    for where, lang, body in _blocks():
        if lang in ("bash", "sh"):
            for line in body.replace("\\\n", " ").splitlines():
                if line.strip():
                    lines.append((where, line.strip()))
    return lines


def _argv(line: str) -> list[str]:
    """A documented command as argv: the trailing comment, ``<placeholders>`` and a synopsis's ``[options]`` go;
    upper-case placeholders become values the parser accepts (``N`` a number, others a name)."""
    line = re.sub(r"\s+#\s.*$", "", line)
    line = re.sub(r"<[^>]*>", "", line)
    line = line.split(" [")[0]
    words = shlex.split(line)
    return ["1" if w in ("N", "K", "S") else w for w in words]


def _commands() -> list[tuple[str, str]]:
    shown = [(w, line) for w, line in _shell_lines() if line.startswith("planshape ")]
    for path in DOCS:
        shown += [(path.relative_to(ROOT).as_posix(), m.group(1)) for m in INLINE.finditer(path.read_text())]
    return shown


@pytest.mark.parametrize(("where", "line"), _commands(), ids=lambda v: v[:60])
def test_every_documented_command_parses(where, line, capsys):
    argv = [w for w in _argv(line)[1:] if w != "..."]
    if not any(w.startswith("-") or "." in w or "/" in w for w in argv):  # a command named in prose: it exists
        with pytest.raises(SystemExit) as shown:
            build_parser().parse_args([*argv, "--help"])
        assert shown.value.code == 0, f"{where}: `{line}` names no planshape command"
        return
    try:
        args = build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"{where}: `{line}` does not parse with planshape's CLI")
    assert callable(args.func)


def test_every_other_shell_line_is_local_or_marked_gpu_only():
    unknown = [(w, line) for w, line in _shell_lines()
               if not line.startswith(("planshape ", *LOCAL, *GPU_ONLY, *ADAPTER_SUITES))]
    assert unknown == []


@pytest.mark.parametrize(("where", "body"), [(w, b) for w, lang, b in _blocks() if lang == "python"],
                         ids=lambda v: v[:40])
def test_every_python_block_compiles_and_imports_what_exists(where, body):
    tree = ast.parse(body, filename=where)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("planshape"):
            trainer = node.module.split(".")[2] if node.module.startswith("planshape.adapters.") else None
            if trainer is not None and importlib.util.find_spec(trainer) is None:
                continue  # a trainer adapter without its trainer here: its own suite imports it with the trainer
            module = importlib.import_module(node.module)
            missing = [a.name for a in node.names if not hasattr(module, a.name)]
            assert not missing, f"{where}: {node.module} has no {missing}"
