"""The VERL adapter suite runs in .venv-verl (scripts/setup-verl.sh); elsewhere it skips cleanly.

Each test module starts with ``require_verl()``: a skip raised from this conftest would crash pytest when the
directory itself is named on the command line (pytest loads it as an initial conftest, outside collection).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from planshape.validators.travelplanner.sample import sample_dir

REASON = "VERL is not installed here: run `bash scripts/test.sh verl` (uses .venv-verl)"


def _plugin_variable() -> None:
    """Before 0.9 VERL loads plugins only from ``VERL_USE_EXTERNAL_MODULES``: set it, as a user of 0.7/0.8 exports
    it, before anything here imports verl (and so for the processes the tests start)."""
    from planshape.adapters.verl.support import ENTRY_POINT, PLUGIN_MODULE, SUPPORT
    from planshape.shaping.facade import UnsupportedRelease

    try:
        if not SUPPORT.has(ENTRY_POINT):
            os.environ.setdefault("VERL_USE_EXTERNAL_MODULES", PLUGIN_MODULE)
    except UnsupportedRelease:  # no VERL here: the suite skips
        pass


_plugin_variable()


def require_verl(feature: str | None = None) -> None:
    """Skip the module outside a VERL venv, or (``feature``: a name of ``support.py``) on a release without it,
    saying what that release gets instead."""
    pytest.importorskip("verl", reason=REASON)
    if feature is not None:
        from planshape.adapters.verl.support import SUPPORT

        gate = SUPPORT.gate(feature)
        if gate is not None:
            pytest.skip(gate, allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[3] / "adapters" / "verl" / "examples"


@pytest.fixture(scope="session")
def sample_rows() -> list[dict]:
    """The sample world's eight scored rollouts (stage-1 rewards 5, 5, 2.875, 0, 5, 5, 0.875, 0)."""
    return [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines()]


@pytest.fixture(scope="session")
def tokenizer():
    from .helpers import build_tokenizer

    return build_tokenizer()


@pytest.fixture()
def example_env(monkeypatch, tmp_path):
    """What the example tool YAML resolves in a worker: the planshape config file and the database."""
    monkeypatch.setenv("PLANSHAPE_CONFIG", str(EXAMPLES / "planshape-8b.yaml"))
    monkeypatch.setenv("PLANSHAPE_DATABASE", "sample")
    return os.environ


@pytest.fixture(scope="session")
def transfer_queue():
    """A local TransferQueue, as the V1 task runner starts one (one storage unit: a small test); one per session."""
    import ray
    import transfer_queue as tq
    from omegaconf import OmegaConf

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=8, include_dashboard=False, log_to_driver=False)
    tq.init(OmegaConf.create({"backend": {"SimpleStorage": {"num_data_storage_units": 1}}}))
    yield tq
    tq.close()
    ray.shutdown()
