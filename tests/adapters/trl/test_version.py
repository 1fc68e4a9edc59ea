"""The supported-version guard, and a package that imports without TRL until a TRL-bound name is used."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_installed_trl_is_supported():
    from planshape.adapters.trl.version import check_version

    assert check_version().startswith("1.16.")


def test_other_version_fails_with_what_to_install(monkeypatch):
    import trl
    from planshape.adapters.trl.version import check_version
    from planshape.shaping.facade import UnsupportedRelease

    monkeypatch.setattr(trl, "__version__", "1.17.0")
    with pytest.raises(UnsupportedRelease, match=r"supports TRL 1\.16\.x, found 1\.17\.0; pip install 'trl==1\.16\.0'"):
        check_version()


def test_changed_private_signature_fails(monkeypatch):
    from planshape.adapters.trl.version import check_version
    from planshape.shaping.facade import UnsupportedRelease
    from trl import GRPOTrainer

    monkeypatch.setattr(GRPOTrainer, "_calculate_rewards", lambda self, inputs, prompts, completions: None)
    with pytest.raises(UnsupportedRelease, match="GRPOTrainer._calculate_rewards has parameters"):
        check_version()


def test_cli_and_package_import_without_trl():
    code = ("import sys; sys.modules['trl'] = None\n"
            "import planshape.adapters.trl as p, planshape.adapters.trl.cli\n"
            "try:\n    p.PlanPOTrainer\nexcept ImportError as e:\n    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "refused: planshape.adapters.trl needs TRL 1.16.x" in out.stdout
