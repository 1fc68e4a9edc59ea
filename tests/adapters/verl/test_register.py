"""Registration through the installed `verl.plugins` entry point, idempotence, and the version guard."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import importlib
import os
import subprocess
import sys

from planshape.adapters.verl import check_version
from planshape.adapters.verl.support import ENTRY_POINT, SUPPORT, V1
from planshape.shaping.facade import UnsupportedRelease

REGISTERED = ("import verl\n"
              "from verl.trainer.ppo.core_algos import get_adv_estimator_fn\n"
              "from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls\n"
              "from verl.trainer.ppo.v1 import get_trainer_cls\n"
              "print(get_adv_estimator_fn('planpo').__module__, get_reward_manager_cls('planshape').__name__,\n"
              "      get_trainer_cls('planshape').__name__)\n")
"""What a fresh process finds registered once it imported verl (0.9: the estimator, the manager, the trainer)."""
PLANSHAPE_REGISTERED = ["planshape.adapters.verl.advantages", "PlanshapeRewardManager", "PlanshapeTrainer"]


def _fresh(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)


def test_import_verl_alone_registers_planshape_in_a_fresh_process():
    if not SUPPORT.has(ENTRY_POINT):
        pytest.skip(SUPPORT.gate(ENTRY_POINT))  # test_contract.py registers through VERL_USE_EXTERNAL_MODULES there
    done = _fresh(REGISTERED)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == PLANSHAPE_REGISTERED
    # and VERL's own switch turns it off: then the estimator is unknown, which `planshape verl check` reports
    off = _fresh(REGISTERED, VERL_USE_EXTERNAL_PLUGINS="none")
    assert off.returncode != 0 and "Unknown advantage estimator" in off.stderr


def test_registration_is_idempotent():
    import verl  # noqa: F401
    from planshape.adapters.verl import register

    register.register()
    importlib.reload(register)  # a second import of the plugin module registers the same objects again
    trainers = ("planshape", "planshape_colocate_async", "planshape_separate_async") if SUPPORT.has(V1) else ()
    assert register.registered() == {"estimator planpo": True, "reward manager planshape": True,
                                     **{f"trainer {name}": True for name in trainers}}


def test_version_guard():
    from importlib import metadata

    assert check_version() == metadata.version("verl")
    for version in ("0.9.7", "0.8.5", "0.7.1", "0.9.2.dev0"):
        assert check_version(version) == version
    for version in ("0.10.0", "0.7.0", "0.6.1", "1.0.0"):
        line = (rf"^planshape's VERL adapter supports VERL 0\.7\.1 to 0\.9\.x, found verl {version}: "
                r"pip install 'verl\[verl-core\]>=0\.7\.1,<0\.10'$")
        with pytest.raises(UnsupportedRelease, match=line):
            check_version(version)


def test_a_failing_plugin_import_is_logged_loudly():
    # VERL swallows plugin import errors at DEBUG; ours logs at ERROR first, saying what to run.
    code = ("import planshape.adapters.verl.version as v\n"
            "v.check_version = lambda: v.SUPPORT.check('0.1')\n"
            "import verl\n")
    done = _fresh(code, VERL_USE_EXTERNAL_MODULES="planshape.adapters.verl.register")
    assert "planshape could not register its VERL plugins" in done.stderr
    assert "planshape verl check" in done.stderr


@pytest.mark.parametrize("first", ["planshape.adapters.verl.reward", "planshape.adapters.verl.trainer", "verl"])
def test_registration_does_not_depend_on_import_order(first):
    if not SUPPORT.has(V1):
        pytest.skip(SUPPORT.gate(V1))
    """Importing the reward module before anything imported verl used to leave both names unregistered (a
    circular import, logged and swallowed by VERL's plugin loader). Each order, in a fresh process."""
    done = _fresh(f"import {first}\n" + REGISTERED)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == PLANSHAPE_REGISTERED
    # VERL itself warns about optional engines it cannot import (torchtitan, megatron, ...): not ours to judge
    for sign in ("ImportError", "partially initialized", "Traceback", "could not register"):
        assert sign not in done.stderr, done.stderr[-2000:]
