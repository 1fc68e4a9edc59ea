"""PlanPO on VERL V1's multi-output agent loops: one row per output (turn), rows of a session sharing
``{uid}_{session_id}`` in their TransferQueue key ``{uid}_{session_id}_{index}``.

V1's ``compute_advantage_for_multi_trajectories`` hands every non-GRPO estimator to ``compute_advantage``
without those keys, so a registered estimator would see each output as a whole trajectory (a 10-output session
weighing 10 times in its group's baseline). This wrapper, installed by ``register.py`` where the V1 trainer
looks the function up, gives the ``planpo`` estimator the sessions as trajectory ids and the output index as
the turn order (the facade's row-per-turn layout: the non-final outputs' scores are per-turn rewards, by
``step_rewards.rows``), and the rows' success flags, anchor states and per-turn rewards where the planshape trainer
fetched them (``advantages.row_success``, ``row_anchors``, ``row_step_rewards``, by key); every other estimator goes
to VERL's function unchanged.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import advantages as planpo
from .advantages import NAME, compute_planpo_advantage

PATCHED = "_planshape_patched"
MODULES = ("verl.trainer.ppo.v1.utils", "verl.trainer.ppo.v1.trainer_base")  # where the V1 trainer finds it


def sessions(batch_keys: Sequence[str]) -> tuple[list[str], list[int]]:
    """(trajectory id, output index) of each V1 key ``{uid}_{session_id}_{index}``."""
    ids, order = [], []
    for key in batch_keys:
        head, _, index = str(key).rpartition("_")
        if not head or not index.isdigit():
            raise ValueError(f"V1 batch key {key!r} is not '{{uid}}_{{session_id}}_{{index}}'")
        ids.append(head)
        order.append(int(index))
    return ids, order


def row_flags(batch_keys: Sequence[str]) -> list[bool] | None:
    """The flags the planshape trainer fetched for these rows (None when it fetched none: not ``by=flag``)."""
    if not planpo.row_success:
        return None
    missing = [str(k) for k in batch_keys if str(k) not in planpo.row_success]
    if missing:
        raise ValueError(f"no success flag was fetched for batch key {missing[0]!r} ({len(missing)} rows)")
    return [planpo.row_success[str(k)] for k in batch_keys]


def row_anchor_lists(batch_keys: Sequence[str]) -> list[list[Any]] | None:
    """The anchor states the planshape trainer fetched for these rows (None when it fetched none: no GiGPO)."""
    if not planpo.row_anchors:
        return None
    missing = [str(k) for k in batch_keys if str(k) not in planpo.row_anchors]
    if missing:
        raise ValueError(f"no anchor states were fetched for batch key {missing[0]!r} ({len(missing)} rows)")
    return [planpo.row_anchors[str(k)] for k in batch_keys]


def row_step_reward_lists(batch_keys: Sequence[str]) -> list[list[float]] | None:
    """The per-turn rewards the planshape trainer fetched for these rows (None when it fetched none)."""
    if not planpo.row_step_rewards:
        return None
    missing = [str(k) for k in batch_keys if str(k) not in planpo.row_step_rewards]
    if missing:
        raise ValueError(f"no per-turn rewards were fetched for batch key {missing[0]!r} ({len(missing)} rows)")
    return [planpo.row_step_rewards[str(k)] for k in batch_keys]


def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def compute_advantage_for_multi_trajectories(data: Any, batch_keys: Sequence[str], adv_estimator: Any,
                                                 *args: Any, config: Any = None, **kwargs: Any) -> Any:
        if adv_estimator != NAME:
            return original(data, batch_keys, adv_estimator, *args, config=config, **kwargs)
        trajectory, order = sessions(batch_keys)
        advantages, returns = compute_planpo_advantage(
            data.batch["token_level_rewards"], data.batch["response_mask"], index=data.non_tensor_batch["uid"],
            config=config, trajectory=trajectory, turn_order=order, success=row_flags(batch_keys),
            anchors=row_anchor_lists(batch_keys), step_rewards=row_step_reward_lists(batch_keys))
        data.batch["advantages"] = advantages
        data.batch["returns"] = returns
        return data

    setattr(compute_advantage_for_multi_trajectories, PATCHED, True)
    return compute_advantage_for_multi_trajectories


def install() -> None:
    """Wrap the function in V1's utils, and in the trainer module if it was imported first (idempotent)."""
    import verl.trainer.ppo.v1.utils  # noqa: F401 - the trainer module binds the name from here

    for name in MODULES:
        module = sys.modules.get(name)
        current = getattr(module, "compute_advantage_for_multi_trajectories", None)
        if module is not None and current is not None and not getattr(current, PATCHED, False):
            module.compute_advantage_for_multi_trajectories = wrap(current)  # type: ignore[attr-defined]
