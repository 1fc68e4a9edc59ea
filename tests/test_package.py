"""Packaging rules of docs/architecture.md: the core imports without trainers or torch, and does no work at import."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

CODE = """
import sys
import planshape.shaping, planshape.shaping.reward, planshape.shaping.advantages, planshape.shaping.plugins
import planshape.shaping.schedules, planshape.shaping.cli, planshape.validators.travelplanner
import planshape.shaping.facade, planshape.shaping.config
planshape.shaping.cli.build_parser()
heavy = [m for m in ("torch", "verl", "trl", "openrlhf", "pandas") if m in sys.modules]
print(",".join(heavy))
"""


def test_core_imports_without_torch_or_trainers():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_no_plugin_manager_or_database_at_import():
    code = ("import planshape.shaping.plugins as p, planshape.shaping.reward as r\n"
            "import planshape.shaping.facade, planshape.validators.travelplanner.store.sqlite as s\n"
            "print(p.plugin_manager.cache_info().currsize, s.open_store.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0"]


def test_wheel_holds_every_package_and_file(tmp_path):
    """Packages are listed by hand in pyproject.toml (the folders map into one namespace): a new adapter
    package, or an example file, left out of that list would silently be missing from the wheel."""
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                    str(tmp_path), str(root)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("planshape-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    listed = subprocess.run(["git", "ls-files", "shaping", "validators", "adapters"], cwd=root, check=True,
                            capture_output=True, text=True).stdout.split()
    expected = {f"planshape/{name}" for name in listed}
    assert sorted(expected - shipped) == []


@pytest.mark.parametrize(("trainer", "argv"), [
    ("verl", ["verl", "check", "algorithm.adv_estimator=planpo"]),
    ("trl", ["trl", "check", "--config", "adapters/trl/examples/shaping.yaml", "--max-steps", "500"]),
    ("openrlhf", ["openrlhf", "check", "--config", "adapters/openrlhf/examples/planshape.json", "--",
                  "--algo.kl.init_coef", "0"]),
])
def test_a_trainer_check_without_its_trainer_says_what_to_install(trainer, argv):
    """Where a user prepares a launch the trainer may be missing: one error line naming the install, rc 2."""
    if importlib.util.find_spec(trainer) is not None:
        pytest.skip(f"{trainer} is installed here; its own suite checks the launch")
    out = subprocess.run([sys.executable, "-m", "planshape.shaping.cli", *argv], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "pip install" in out.stderr
