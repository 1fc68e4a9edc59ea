"""tests/paper_reference.py, loaded by path: this folder is deliberately not a package (conftest.py says why)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "paper_reference.py"
_SPEC = importlib.util.spec_from_file_location("planshape_paper_reference", _PATH)
reference = importlib.util.module_from_spec(_SPEC)  # type: ignore[arg-type]
_SPEC.loader.exec_module(reference)  # type: ignore[union-attr]
