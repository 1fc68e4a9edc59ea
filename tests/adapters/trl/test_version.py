"""The supported-version guard, and a package that imports without TRL until a TRL-bound name is used."""

from __future__ import annotations

import subprocess
import sys

import pytest
from planshape.adapters.trl.support import PLANPO, SUPPORT
from planshape.shaping.facade import UnsupportedRelease


def test_installed_trl_is_in_the_range():
    import trl
    from planshape.adapters.trl.version import check_version

    assert check_version() == trl.__version__ and SUPPORT.in_range(trl.__version__)


@pytest.mark.parametrize("found", ["1.17.0", "0.19.1", "2.0.0"])
def test_a_release_outside_the_range_fails_in_one_line_with_what_to_install(monkeypatch, found):
    import trl
    from planshape.adapters.trl.version import check_version
    from planshape.shaping.facade import UnsupportedRelease

    monkeypatch.setattr(trl, "__version__", found)
    line = (rf"^planshape's TRL adapter supports TRL 0\.20\.0 to 1\.16\.x, found trl {found}: "
            r"pip install 'trl>=0\.20\.0,<1\.17'$")
    with pytest.raises(UnsupportedRelease, match=line):
        check_version()


def test_the_trainer_below_1_9_says_what_the_release_gets(monkeypatch):
    import trl
    from planshape.adapters.trl.version import check_trainer

    monkeypatch.setattr(trl, "__version__", "1.8.0")
    gate = (r"`PlanPOTrainer`.* needs TRL >= 1\.9\.0; trl 1\.8\.0 gets: the reward only, "
            r"with GRPOTrainer's own advantages")
    with pytest.raises(UnsupportedRelease, match=gate):
        check_trainer()


def test_changed_private_signature_fails(monkeypatch):
    if not SUPPORT.has(PLANPO):
        pytest.skip(SUPPORT.gate(PLANPO))
    from planshape.adapters.trl.version import check_trainer
    from trl import GRPOTrainer

    monkeypatch.setattr(GRPOTrainer, "_calculate_rewards", lambda self, inputs, prompts, completions: None)
    with pytest.raises(UnsupportedRelease, match="GRPOTrainer._calculate_rewards has parameters"):
        check_trainer()


def test_cli_and_package_import_without_trl():
    code = ("import sys; sys.modules['trl'] = None\n"
            "import planshape.adapters.trl as p, planshape.adapters.trl.cli\n"
            "try:\n    p.PlanPOTrainer\nexcept ImportError as e:\n    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "refused: planshape's TRL adapter needs TRL 0.20.0 to 1.16.x" in out.stdout
