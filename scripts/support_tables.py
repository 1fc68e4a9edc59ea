"""Rewrite the docs' support tables from the adapters' own (``adapters/<trainer>/support.py``).

    python scripts/support_tables.py      # after changing a support table; tests/test_support_tables.py checks
"""

from __future__ import annotations

from pathlib import Path

from planshape.shaping.facade.releases import render, supports

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("docs/releases.md", "adapters/verl/examples/README.md", "docs/trl.md", "adapters/openrlhf/examples/README.md")

if __name__ == "__main__":
    for name in DOCS:
        path = ROOT / name
        text = path.read_text()
        if render(text, supports()) != text:
            path.write_text(render(text, supports()))
            print(f"rewrote the support tables of {name}")
