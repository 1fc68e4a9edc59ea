"""The setup hook, run as Ray runs it: the runtime env of the examples goes through Ray's own
``upload_worker_process_setup_hook_if_needed`` (driver side), and a fresh Python process executes Ray's own
``load_and_execute_setup_hook`` on the variable that produces, as ``default_worker.py`` does before any task."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import STUBS
from planshape.adapters.openrlhf.config import RAY_SETUP_HOOK_ENV, runtime_env

WORKER = """
import importlib.util, json, os, sys
from ray._private import ray_constants
from ray._private.runtime_env.setup_hook import load_and_execute_setup_hook

def stand_ins():
    spec = importlib.util.spec_from_file_location("stubs", {stubs!r})
    module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module); module.install()

if {import_first}:
    stand_ins(); import openrlhf.trainer.ppo_trainer
error = load_and_execute_setup_hook(os.environ[ray_constants.WORKER_PROCESS_SETUP_HOOK_ENV_VAR])
loaded = sorted(m for m in ("openrlhf.trainer.ppo_trainer", "torch", "deepspeed", "vllm",
                            "planshape.adapters.openrlhf.advantages") if m in sys.modules)
if {trainer}:  # the process becomes the trainer actor: OpenRLHF's trainer module is imported
    stand_ins()
    from openrlhf.trainer.ppo_trainer import BasePPOTrainer
    from openrlhf.trainer.ppo_utils.experience_maker import RemoteExperienceMaker
    wrapped = [getattr(RemoteExperienceMaker.compute_advantages_and_returns, "_planshape_patched", False),
               getattr(BasePPOTrainer.__init__, "_planshape_patched", False),
               RemoteExperienceMaker.compute_advantages_and_returns.__wrapped__.__module__]
else:
    wrapped = None
print(json.dumps({{"error": error, "loaded_by_hook": loaded, "wrapped": wrapped}}))
"""


def run_worker(config: str, import_first: bool = False, trainer: bool = True) -> dict:
    from ray._private.runtime_env.setup_hook import upload_worker_process_setup_hook_if_needed

    env = upload_worker_process_setup_hook_if_needed(runtime_env(config), worker=None)
    assert env["env_vars"][RAY_SETUP_HOOK_ENV] == "planshape.adapters.openrlhf.register.install"
    script = WORKER.format(stubs=str(STUBS), import_first=import_first, trainer=trainer)
    proc = subprocess.run([sys.executable, "-c", script], env={**os.environ, **env["env_vars"]},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("import_first", [False, True], ids=["hook-then-import", "import-then-hook"])
def test_the_hook_wraps_openrlhf_in_the_trainer_process(curriculum_config, import_first):
    result = run_worker(curriculum_config, import_first=import_first)
    assert result["error"] is None
    assert result["wrapped"] == [True, True, "openrlhf.trainer.ppo_utils.experience_maker"]


def test_the_hook_imports_nothing_in_other_workers(curriculum_config):
    """In a vLLM engine's worker the hook must not pull in torch or deepspeed before CUDA is set up."""
    result = run_worker(curriculum_config, trainer=False)
    assert result["error"] is None and result["loaded_by_hook"] == []
