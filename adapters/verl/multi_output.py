"""PlanPO on VERL V1's multi-output agent loops: one row per output (turn), rows of a session sharing
``{uid}_{session_id}`` in their TransferQueue key ``{uid}_{session_id}_{index}``.

V1's ``compute_advantage_for_multi_trajectories`` hands every non-GRPO estimator to ``compute_advantage``
without those keys, so a registered estimator would see each output as a whole trajectory (a 10-output session
weighing 10 times in its group's baseline). This wrapper, installed by ``register.py`` where the V1 trainer
looks the function up, gives the ``planpo`` estimator the sessions as trajectory ids and the output index as
the turn order (the facade's row-per-turn layout: the non-final outputs' scores are per-turn rewards, by
``step_rewards.rows``), and the rows' success flags, anchor states and per-turn rewards where the planshape trainer
fetched them (``advantages.advantage_step``, by key); every other estimator goes to VERL's function unchanged.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .advantages import NAME, AdvantageStep, compute_planpo_advantage, current_step

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


def by_row(fetched: dict[str, Any] | None, batch_keys: Sequence[str], what: str) -> list[Any] | None:
    """What the planshape trainer fetched for these rows (``what``: the success flags, the anchor states or the
    per-turn rewards), in their order; None when it fetched none."""
    if fetched is None:
        return None
    missing = [str(k) for k in batch_keys if str(k) not in fetched]
    if missing:
        raise ValueError(f"no {what} were fetched for batch key {missing[0]!r} ({len(missing)} rows)")
    return [fetched[str(k)] for k in batch_keys]


def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def compute_advantage_for_multi_trajectories(data: Any, batch_keys: Sequence[str], adv_estimator: Any,
                                                 *args: Any, config: Any = None, **kwargs: Any) -> Any:
        if adv_estimator != NAME:
            return original(data, batch_keys, adv_estimator, *args, config=config, **kwargs)
        trajectory, order = sessions(batch_keys)
        step = current_step() or AdvantageStep()  # outside the planshape trainer: no flags, no states
        advantages, returns = compute_planpo_advantage(
            data.batch["token_level_rewards"], data.batch["response_mask"], index=data.non_tensor_batch["uid"],
            config=config, trajectory=trajectory, turn_order=order,
            success=by_row(step.success, batch_keys, "success flags"),
            anchors=by_row(step.anchors, batch_keys, "anchor states"),
            step_rewards=by_row(step.step_rewards, batch_keys, "per-turn rewards"))
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
