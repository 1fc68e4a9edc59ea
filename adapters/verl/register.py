"""VERL plugin module: importing it registers planshape with VERL (the ``verl.plugins`` entry point).

``import verl`` loads every ``verl.plugins`` entry point in every process (trainer driver, reward-loop and
agent-loop workers), but only imports it, and swallows its errors at DEBUG level. So the registrations happen
here at import time, are idempotent (same objects every time; a second import is a no-op), and an import
failure is logged at ERROR with what to do before VERL hides it.

Import order does not matter: when a user imports ``reward`` (or ``advantages``) before anything imported
``verl``, that module's own ``import verl`` runs this one while it is itself half-initialised. Each object is
then registered when its module finishes (the module calls ``finish_registration()`` at its end), not looked
up early.

Registered: the ``planpo`` advantage estimator, the ``planshape`` reward-loop manager and the ``planshape`` V1
trainer (``trainer.v1.trainer_mode=planshape``: the sync trainer that logs planshape's metrics); V1's multi-output
dispatch is wrapped so that ``planpo`` sees a session's outputs as one trajectory (``multi_output.py``).
The tools need no registration: VERL's tool loader imports the classes the tool YAML names.
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


def register() -> None:
    """Register the estimator, the reward manager and the trainer with VERL (idempotent)."""
    from verl.experimental.reward_loop.reward_manager import registry
    from verl.trainer.ppo import core_algos
    from verl.trainer.ppo.v1 import trainer_base

    from . import advantages, reward, trainer  # any may be half-initialised (see above): it registers when done

    estimator = getattr(advantages, "compute_planpo_advantage", None)
    if estimator is not None and core_algos.ADV_ESTIMATOR_REGISTRY.get(advantages.NAME) is not estimator:
        core_algos.register_adv_est(advantages.NAME)(estimator)
    manager = getattr(reward, "PlanshapeRewardManager", None)
    if manager is not None and registry.REWARD_MANAGER.get(reward.MANAGER_NAME) is not manager:
        registry.register(reward.MANAGER_NAME)(manager)
    trainer_cls = getattr(trainer, "PlanshapeTrainer", None)
    if trainer_cls is not None and trainer_base.TRAINER_REGISTRY.get(trainer.TRAINER_NAME) is not trainer_cls:
        trainer_base.register_trainer(trainer.TRAINER_NAME)(trainer_cls)
    if estimator is not None:
        from . import multi_output

        multi_output.install()


def registered() -> dict[str, bool]:
    """Whether each planshape registration is present in this process's VERL registries."""
    from verl.experimental.reward_loop.reward_manager import registry
    from verl.trainer.ppo import core_algos
    from verl.trainer.ppo.v1 import trainer_base

    from .advantages import NAME, compute_planpo_advantage
    from .reward import MANAGER_NAME, PlanshapeRewardManager
    from .trainer import TRAINER_NAME, PlanshapeTrainer

    return {f"estimator {NAME}": core_algos.ADV_ESTIMATOR_REGISTRY.get(NAME) is compute_planpo_advantage,
            f"reward manager {MANAGER_NAME}": registry.REWARD_MANAGER.get(MANAGER_NAME) is PlanshapeRewardManager,
            f"trainer {TRAINER_NAME}": trainer_base.TRAINER_REGISTRY.get(TRAINER_NAME) is PlanshapeTrainer}


try:
    from .version import check_version

    check_version()
    register()
except Exception:
    logger.exception("planshape could not register its VERL plugins (estimator 'planpo', reward manager "
                     "'planshape', trainer 'planshape'); run `planshape verl check` in this environment to see why")
    raise
