"""VERL plugin module: importing it registers planshape with VERL (the ``verl.plugins`` entry point).

``import verl`` loads every ``verl.plugins`` entry point in every process (trainer driver, reward-loop and
agent-loop workers), but only imports it, and swallows its errors at DEBUG level. So the registrations happen
here at import time, are idempotent (same objects every time; a second import is a no-op), and an import
failure is logged at ERROR with what to do before VERL hides it.

Import order does not matter: when a user imports ``reward`` (or ``advantages``) before anything imported
``verl``, that module's own ``import verl`` runs this one while it is itself half-initialised. Each object is
then registered when its module finishes (the module calls ``register()`` at its end), not looked up early.

Registered: the ``planpo`` advantage estimator and the ``planshape`` reward-loop manager. The tools need no
registration: VERL's tool loader imports the classes the tool YAML names.
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


def register() -> None:
    """Register the estimator and the reward manager with VERL (idempotent)."""
    from verl.experimental.reward_loop.reward_manager import registry
    from verl.trainer.ppo import core_algos

    from . import advantages, reward  # either may be half-initialised (see above): it registers when done

    estimator = getattr(advantages, "compute_planpo_advantage", None)
    if estimator is not None and core_algos.ADV_ESTIMATOR_REGISTRY.get(advantages.NAME) is not estimator:
        core_algos.register_adv_est(advantages.NAME)(estimator)
    manager = getattr(reward, "PlanshapeRewardManager", None)
    if manager is not None and registry.REWARD_MANAGER.get(reward.MANAGER_NAME) is not manager:
        registry.register(reward.MANAGER_NAME)(manager)


def registered() -> dict[str, bool]:
    """Whether each planshape registration is present in this process's VERL registries."""
    from verl.experimental.reward_loop.reward_manager import registry
    from verl.trainer.ppo import core_algos

    from .advantages import NAME, compute_planpo_advantage
    from .reward import MANAGER_NAME, PlanshapeRewardManager

    return {f"estimator {NAME}": core_algos.ADV_ESTIMATOR_REGISTRY.get(NAME) is compute_planpo_advantage,
            f"reward manager {MANAGER_NAME}": registry.REWARD_MANAGER.get(MANAGER_NAME) is PlanshapeRewardManager}


try:
    from .version import check_version

    check_version()
    register()
except Exception:
    logger.exception("planshape could not register its VERL plugins (estimator 'planpo', reward manager "
                     "'planshape'); run `planshape verl check` in this environment to see why")
    raise
