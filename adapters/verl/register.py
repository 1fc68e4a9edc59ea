"""VERL plugin module: importing it registers planshape with VERL.

VERL 0.9's ``import verl`` loads every ``verl.plugins`` entry point in every process (trainer driver, reward-loop and
agent-loop workers); 0.7 and 0.8 import the modules named in ``VERL_USE_EXTERNAL_MODULES`` instead (set it to this
module in every Ray process). Either way VERL only imports it, and 0.9 swallows its errors at DEBUG level. So the
registrations happen here at import time, are idempotent (same objects every time; a second import is a no-op), and
an import failure is logged at ERROR with what to do before VERL hides it.

Import order does not matter: when a user imports ``reward`` (or ``advantages``) before anything imported ``verl``,
that module's own ``import verl`` runs this one while it is itself half-initialised. Each object is then registered
when its module finishes (the module calls ``finish_registration()`` at its end), not looked up early.

Registered on every release of the range: the ``planpo`` advantage estimator and the ``planshape`` reward-loop
manager. Where the release has the V1 trainers (0.9, ``support.py``): the planshape V1 trainers
(``trainer.v1.trainer_mode=planshape``, ``planshape_colocate_async``, ``planshape_separate_async``: VERL's trainer of
that mode that also logs planshape's metrics), and V1's multi-output dispatch is wrapped so that ``planpo`` sees a
session's outputs as one trajectory (``multi_output.py``). The tools need no registration: VERL's tool loader imports
the classes the tool YAML names.
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


def register() -> None:
    """Register the estimator, the reward manager and (0.9) the trainers with VERL (idempotent)."""
    from verl.experimental.reward_loop.reward_manager import registry
    from verl.trainer.ppo import core_algos

    from . import advantages, reward  # either may be half-initialised (see above): it registers when done

    estimator = getattr(advantages, "compute_planpo_advantage", None)
    if estimator is not None and core_algos.ADV_ESTIMATOR_REGISTRY.get(advantages.NAME) is not estimator:
        core_algos.register_adv_est(advantages.NAME)(estimator)
    manager = getattr(reward, "PlanshapeRewardManager", None)
    if manager is not None and registry.REWARD_MANAGER.get(reward.MANAGER_NAME) is not manager:
        registry.register(reward.MANAGER_NAME)(manager)
    if not has(V1):
        return
    from verl.trainer.ppo.v1 import trainer_base

    from . import trainer

    for name, trainer_cls in getattr(trainer, "TRAINERS", {}).items():
        if trainer_base.TRAINER_REGISTRY.get(name) is not trainer_cls:
            trainer_base.register_trainer(name)(trainer_cls)
    if estimator is not None:
        from . import multi_output

        multi_output.install()


def registered() -> dict[str, bool]:
    """Whether each planshape registration of this release is present in this process's VERL registries."""
    from verl.experimental.reward_loop.reward_manager import registry
    from verl.trainer.ppo import core_algos

    from .advantages import NAME, compute_planpo_advantage
    from .reward import MANAGER_NAME, PlanshapeRewardManager

    out = {f"estimator {NAME}": core_algos.ADV_ESTIMATOR_REGISTRY.get(NAME) is compute_planpo_advantage,
           f"reward manager {MANAGER_NAME}": registry.REWARD_MANAGER.get(MANAGER_NAME) is PlanshapeRewardManager}
    if has(V1):
        from verl.trainer.ppo.v1 import trainer_base

        from .trainer import TRAINERS

        registry = trainer_base.TRAINER_REGISTRY
        out.update({f"trainer {name}": registry.get(name) is cls for name, cls in TRAINERS.items()})
    return out


try:
    from .support import V1
    from .version import check_version, has

    check_version()
    register()
except Exception:
    logger.exception("planshape could not register its VERL plugins (estimator 'planpo', reward manager "
                     "'planshape', the planshape trainers); run `planshape verl check` in this environment to see why")
    raise
