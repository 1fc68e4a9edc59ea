"""The layers of docs/architecture.md, read from the real source: validators know nothing of training, the core knows no
trainer, an adapter reaches the core only through the facade, and no module imports itself back through others
(every import counts: at module level, inside a function, or under ``TYPE_CHECKING``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"shaping": "planshape.shaping", "validators": "planshape.validators", "adapters": "planshape.adapters"}
FACADE = "planshape.shaping.facade"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    name = ".".join([FOLDERS[parts[0]], *parts[1:]])
    return name.removesuffix(".__init__")


def _sources() -> dict[str, Path]:
    """Every module of the package (the adapters' example files are user files, not modules of it)."""
    return {_module_name(p): p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")
            if "examples" not in p.parts}


MODULES = _sources()


def _imports(name: str, path: Path) -> set[str]:
    """The planshape modules ``name`` imports, relative imports resolved. ``from pkg import a, b`` counts each
    name that is a module, and ``pkg`` itself only when some name is not (so it is read from ``pkg/__init__``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            subs = {f"{base}.{a.name}" for a in node.names} & MODULES.keys()
            out.update(subs)
            if len(subs) < len(node.names):
                out.add(base)
    return {m for m in out if m.startswith("planshape.") and m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_graph_is_read():
    """The reader finds the imports it must (a guard for the tests below)."""
    assert "planshape.shaping.facade.shaper" in GRAPH["planshape.shaping.facade"]
    assert "planshape.validators.travelplanner.checks.trip" in GRAPH[
        "planshape.validators.travelplanner.checks.commonsense"]
    assert len([m for m in MODULES if m.startswith("planshape.adapters.")]) > 20


def test_validators_never_import_the_core_or_an_adapter():
    bad = {m: sorted(i for i in deps if not i.startswith("planshape.validators"))
           for m, deps in GRAPH.items() if m.startswith("planshape.validators")}
    assert {m: d for m, d in bad.items() if d} == {}


def test_the_core_never_imports_an_adapter():
    bad = {m: sorted(i for i in deps if i.startswith("planshape.adapters"))
           for m, deps in GRAPH.items() if m.startswith("planshape.shaping")}
    assert {m: d for m, d in bad.items() if d} == {}


@pytest.mark.parametrize("adapter", sorted({m.split(".")[2] for m in MODULES if m.count(".") >= 3
                                            and m.startswith("planshape.adapters.")}))
def test_an_adapter_imports_only_the_facade_and_itself(adapter):
    own = f"planshape.adapters.{adapter}"
    bad = {m: sorted(i for i in deps if i != FACADE and not i.startswith(own + ".") and i != own)
           for m, deps in GRAPH.items() if m == own or m.startswith(own + ".")}
    assert {m: d for m, d in bad.items() if d} == {}


def test_no_import_cycle():
    """Tarjan's strongly connected components over every import edge: each must be a single module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in GRAPH[node]:
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    assert cycles == []
