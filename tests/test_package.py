"""Packaging rules from DESIGN.md: the core imports without trainers or torch, and does no work at import."""

import subprocess
import sys

CODE = """
import sys
import planshape.shaping, planshape.shaping.reward, planshape.shaping.advantages, planshape.shaping.plugins
import planshape.shaping.schedules, planshape.shaping.cli, planshape.validators.travelplanner
heavy = [m for m in ("torch", "verl", "trl", "openrlhf", "pandas") if m in sys.modules]
print(",".join(heavy))
"""


def test_core_imports_without_torch_or_trainers():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_no_plugin_manager_or_database_at_import():
    code = ("import planshape.shaping.plugins as p, planshape.shaping.reward as r\n"
            "print(p.plugin_manager.cache_info().currsize, r.open_store.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0"]
