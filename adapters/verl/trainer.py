"""The ``planshape`` V1 trainer: VERL's sync trainer that also logs every planshape metric at every step.

VERL 0.9's V1 trainer keeps ``reward_extra_info`` out of its training metrics (validation only) and gives
estimators no metrics sink; its extension point is a trainer class registered with ``@register_trainer`` and
chosen by ``trainer.v1.trainer_mode``. This class is selected with ``trainer.v1.trainer_mode=planshape``
(registered by ``register.py``) and changes no VERL code:

* it is ``PPOTrainerSync`` in behaviour. VERL tests ``self.trainer_mode == "sync"`` literally (replay buffer,
  refill, checkpoints, prompt reissue), so once the registry has chosen this class, ``trainer.v1.trainer_mode``
  is set back to ``"sync"`` before the base class reads it: every such check then sees the sync trainer;
* after VERL's advantage step it adds the estimator's statistics (``advantages.last_stats``, written by the
  call just made, in this process) to that step's metrics, as VERL adds its own KL metrics there;
* after VERL's metric step it adds the batch means of the reward's planshape metrics, read from each row's
  ``reward_extra_info`` (where the reward loop stores them), over the rows VERL trains on (padding excluded).

So ``Tracking.log(data=metrics, step=global_steps)`` receives them with VERL's own metrics of the same step.
Which names: ``Shaper.metric_names`` and ``Shaper.advantage_metric_names`` of the run's planshape block
(``metrics:`` chooses the groups).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from .version import check_version, finish_registration

check_version()  # a clear message outside VERL 0.9.x, before VERL's own imports can fail obscurely

import numpy as np  # noqa: E402
import transfer_queue as tq  # noqa: E402
from omegaconf import open_dict, read_write  # noqa: E402
from planshape.shaping.facade import ConfigError, Shaper  # noqa: E402
from verl.trainer.ppo.v1.trainer_sync import PPOTrainerSync  # noqa: E402

from . import advantages  # noqa: E402
from .config import BLOCK, shaper_for  # noqa: E402

TRAINER_NAME = "planshape"
SYNC = "sync"  # the mode name VERL's own checks compare against
REWARD_EXTRA_INFO = "reward_extra_info"  # where the reward loop puts a row's reward dict in ``extra_fields``
logger = logging.getLogger(__name__)


def run_shaper(config: Any) -> Shaper:
    """The run's planshape settings: ``algorithm.planpo``, else the plain reward's ``reward_kwargs.planshape``."""
    block = config.algorithm.get(BLOCK)
    if block is None:
        block = ((config.get("reward") or {}).get("custom_reward_function") or {}).get("reward_kwargs", {}) \
            .get("planshape")
    if block is None:
        raise ConfigError(f"trainer.v1.trainer_mode={TRAINER_NAME} logs planshape's metrics, so it needs the "
                          f"planshape settings: +algorithm.{BLOCK}.database=... (or the reward's "
                          "reward_kwargs.planshape)")
    return shaper_for(block)


def reward_metrics(shaper: Shaper, infos: Iterable[Any]) -> dict[str, float]:
    """The batch mean of every ``shaper.metric_names`` entry over the rows' reward dicts; a name is missing
    only when no row has it (a reward that is not planshape's)."""
    rows = [info for info in infos if isinstance(info, Mapping)]
    out = {}
    for name in shaper.metric_names:
        values = [float(row[name]) for row in rows if name in row]
        if values:
            out[name] = float(np.mean(values))
    return out


def advantage_metrics(shaper: Shaper, stats: Mapping[str, float]) -> dict[str, float]:
    """The estimator's statistics under the names the config's groups keep (none with VERL's own estimators)."""
    return {name: float(stats[name]) for name in shaper.advantage_metric_names if name in stats}


class PlanshapeTrainer(PPOTrainerSync):
    """``PPOTrainerSync`` plus planshape's metrics in the step's log (see the module docstring)."""

    def __init__(self, config: Any):
        with read_write(config), open_dict(config):
            config.trainer.v1.trainer_mode = SYNC  # the registry already chose this class by its name
        self.shaper = run_shaper(config)
        self._warned_missing = False
        super().__init__(config)

    def _compute_advantage(self, batch: Any, metrics: dict) -> Any:
        advantages.last_stats.clear()  # what is there after the call is this call's
        batch = super()._compute_advantage(batch, metrics)
        metrics.update(advantage_metrics(self.shaper, advantages.last_stats))
        return batch

    def _compute_metrics(self, batch: Any, metrics: dict, timing_raw: dict, global_steps: int, epoch: int) -> None:
        super()._compute_metrics(batch, metrics, timing_raw, global_steps, epoch)
        metrics.update(self.planshape_metrics(batch))

    def planshape_metrics(self, batch: Any) -> dict[str, float]:
        """The reward's planshape metrics of ``batch`` (a ``KVBatchMeta``), averaged over its real rows."""
        real = [i for i, tag in enumerate(batch.tags) if not tag.get("is_padding", False)]
        if not real:
            return {}
        data = tq.kv_batch_get(keys=[batch.keys[i] for i in real], partition_id=batch.partition_id,
                               select_fields=["extra_fields"])
        extra = data["extra_fields"]
        extra = extra.tolist() if hasattr(extra, "tolist") else list(extra)
        out = reward_metrics(self.shaper, (e.get(REWARD_EXTRA_INFO) if isinstance(e, Mapping) else None
                                           for e in extra))
        missing = [n for n in self.shaper.metric_names if n not in out]
        if missing and not self._warned_missing:
            logger.warning("planshape trainer: %d planshape metric(s) are in no row's reward_extra_info (e.g. %s): "
                           "is the reward planshape's (reward.reward_manager.name=planshape)?", len(missing),
                           missing[0])
            self._warned_missing = True
        return out


finish_registration()
