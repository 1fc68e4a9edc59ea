"""The planshape V1 trainers: VERL's trainer of each V1 mode that also logs every planshape metric at every step.

VERL 0.9's V1 trainer keeps ``reward_extra_info`` out of its training metrics (validation only) and gives
estimators no metrics sink; its extension point is a trainer class registered with ``@register_trainer`` and
chosen by ``trainer.v1.trainer_mode``. ``register.py`` registers one class per V1 mode and changes no VERL code:

==================================  ==========================  =========================================
``trainer.v1.trainer_mode=``        behaves as VERL's           rows' rollouts
==================================  ==========================  =========================================
``planshape``                       ``sync``                    this step's policy
``planshape_colocate_async``        ``colocate_async``          partial rollouts, up to VERL's staleness
``planshape_separate_async``        ``separate_async``          (``max_off_policy_threshold``)
==================================  ==========================  =========================================

* each is VERL's trainer of its mode in behaviour. VERL tests ``self.trainer_mode == "sync"`` literally (replay
  buffer, refill, checkpoints, prompt reissue) and reads ``trainer.v1.<mode>`` for the mode's settings, so once
  the registry has chosen the class, ``trainer.v1.trainer_mode`` is set back to VERL's mode before the base
  class reads it;
* after VERL's advantage step it adds the estimator's statistics (``advantages.advantage_step``, filled by the
  call just made, in this process) to that step's metrics, as VERL adds its own KL metrics there (an async step
  with ``parameter_sync_step`` > 1 runs several advantage steps; VERL's aggregator averages them by rows);
* after VERL's metric step it adds the batch means of the reward's planshape metrics, read from each row's
  ``reward_extra_info`` (where the reward loop stores them), over the rows VERL trains on (padding excluded).

So ``Tracking.log(data=metrics, step=global_steps)`` receives them with VERL's own metrics of the same step.
Which names: ``Shaper.metric_names`` and ``Shaper.advantage_metric_names`` of the run's planshape block
(``metrics:`` chooses the groups). Groups are complete before advantages in every mode: VERL's replay buffer
samples only prompts whose every rollout is terminal, as GRPO needs.

Two things only a trainer knows, so only these trainers give them to planshape:

* the run's length: once VERL's ``_init_dataloader`` has computed ``total_training_steps`` (dataloader length x
  ``trainer.total_epochs``, or ``trainer.total_training_steps``), planshape's ``total_steps`` is filled in from
  it or a different one is refused (the facade's rule), and written back into the block, so that the estimator
  and the reward workers, which build their ``Shaper`` from that block, decay α over the same steps;
* each row's success flag: with ``success.by=flag``, the flag field of every row's ``reward_extra_info``; in
  the async modes with ``success.by=pass``, the reward's own verdict ``acc`` (a row rolled out at an older
  step was scored under that step's stage, so its score must not be read against this step's maximum). They
  are fetched before VERL's advantage step and handed, by TransferQueue key, to the ``planpo`` estimator
  (handed down in ``advantages.advantage_step``, read by ``multi_output.py`` in both layouts).
* for GiGPO, each row's anchor states, likewise (``anchor_states``);
* with ``step_rewards.field``, each row's per-turn rewards besides the outcome, the list the agent loop keeps in the
  row's ``extra_fields``, likewise (``step_rewards``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .support import SUPPORT, TRAINER
from .version import finish_registration

SUPPORT.require(TRAINER)  # outside the range, or before 0.9: one message, before VERL's own imports fail obscurely

import numpy as np  # noqa: E402
import transfer_queue as tq  # noqa: E402
from omegaconf import open_dict, read_write  # noqa: E402
from planshape.shaping.facade import ConfigError, Shaper, tool_call_anchors, turn_texts  # noqa: E402
from verl.trainer.ppo.v1.trainer_colocate_async import PPOTrainerColocateAsync  # noqa: E402
from verl.trainer.ppo.v1.trainer_separate_async import PPOTrainerSeparateAsync  # noqa: E402
from verl.trainer.ppo.v1.trainer_sync import PPOTrainerSync  # noqa: E402

from . import advantages, multi_output  # noqa: E402
from .config import BLOCK, block_mapping, block_shaper, run_shaper  # noqa: E402
from .settings_refused import algorithm_refusals, refuse, reward_refusals  # noqa: E402

TRAINER_NAME = "planshape"
SYNC = "sync"  # the mode name VERL's own checks compare against
PASS_FLAG = "acc"  # the planshape reward's final pass, in every row's reward dict
REWARD_EXTRA_INFO = "reward_extra_info"  # where the reward loop puts a row's reward dict in ``extra_fields``
TOTAL_STEPS = "total_steps"
logger = logging.getLogger(__name__)


def block_home(config: Any) -> tuple[Any, str]:
    """Where the run's planshape settings are: (node, key) of ``algorithm.planpo``, else of the plain reward's
    ``reward_kwargs.planshape``."""
    if config.algorithm.get(BLOCK) is not None:
        return config.algorithm, BLOCK
    kwargs = ((config.get("reward") or {}).get("custom_reward_function") or {}).get("reward_kwargs")
    if kwargs is not None and kwargs.get("planshape") is not None:
        return kwargs, "planshape"
    raise ConfigError(f"trainer.v1.trainer_mode={config.trainer.v1.trainer_mode} logs planshape's metrics, so it "
                      f"needs the planshape settings: +algorithm.{BLOCK}.database=... (or the reward's "
                      "reward_kwargs.planshape)")


def configured_shaper(config: Any) -> Shaper:
    """The run's planshape settings: ``algorithm.planpo``, else the plain reward's ``reward_kwargs.planshape``;
    ``total_steps`` checked against (or filled in from) ``trainer.total_training_steps`` where it is set."""
    node, key = block_home(config)
    steps = config.trainer.get("total_training_steps")
    return run_shaper(node[key], None if steps is None else int(steps))


def align_total_steps(config: Any, run_steps: int, run_source: str) -> Shaper:
    """The run's ``Shaper`` with ``total_steps`` = the steps VERL will run (filled in, or a ``ConfigError``
    naming both numbers), written back into the block so every ``Shaper`` built from it agrees."""
    node, key = block_home(config)
    settings = block_mapping(node[key])
    block_shaper(settings, run_steps, run_source)  # the facade's rule: fill in, or refuse a different number
    with read_write(node), open_dict(node):
        node[key] = {**settings, TOTAL_STEPS: run_steps}
    return run_shaper(node[key])


def run_source(config: Any, steps_per_epoch: int) -> str:
    """What fixed the run's length, for the message of a ``total_steps`` that disagrees with it."""
    if config.trainer.get("total_training_steps") is not None:
        return "trainer.total_training_steps"
    return (f"VERL's trainer ({steps_per_epoch} steps per epoch: the train set over data.train_batch_size, "
            f"x trainer.total_epochs={config.trainer.total_epochs})")


def advantage_metrics(shaper: Shaper, stats: Mapping[str, float]) -> dict[str, float]:
    """The estimator's statistics under the names the config's groups keep (none with VERL's own estimators)."""
    return {name: float(stats[name]) for name in shaper.advantage_metric_names if name in stats}


# A mixin over VERL's trainer classes, which ship no type hints: to the type checker it subclasses "anything".
_VerlTrainer: Any = object


class PlanshapeSteps(_VerlTrainer):
    """planshape's part of a V1 trainer; put before VERL's trainer of a mode (see the module docstring)."""

    mode: str  # VERL's own name of the mode this class behaves as

    def __init__(self, config: Any):
        with read_write(config), open_dict(config):
            config.trainer.v1.trainer_mode = self.mode  # the registry already chose this class by its name
        node, key = block_home(config)
        steps = config.trainer.get("total_training_steps")
        self.shaper: Shaper  # None until ``_init_dataloader`` when the run's length decides it (before any step)
        if steps is not None:
            self.shaper = align_total_steps(config, int(steps), "trainer.total_training_steps")
        elif TOTAL_STEPS in block_mapping(node[key]):
            self.shaper = configured_shaper(config)  # checked against the dataloader's length in ``_init_dataloader``
        else:
            self.shaper = None  # type: ignore[assignment]  # built once ``_init_dataloader`` knows the run's length
        self._warned_missing = False
        super().__init__(config)

    def _init_dataloader(self) -> None:
        """VERL computes the run's length here; planshape's ``total_steps`` follows it (``align_total_steps``)."""
        super()._init_dataloader()
        self.shaper = align_total_steps(self.config, int(self.total_training_steps),
                                        run_source(self.config, self.steps_per_epoch))
        if str(self.config.algorithm.adv_estimator) == "planpo":  # refused before the first rollout
            self.shaper.require_estimator(f"algorithm.adv_estimator={advantages.NAME}")
            manager = self.config.reward.reward_manager
            refuse(algorithm_refusals(self.config.algorithm, self.shaper)
                   + reward_refusals(self.config, self.shaper, str(manager.get("name"))))

    def _compute_advantage(self, batch: Any, metrics: dict) -> Any:
        ours = self.config.algorithm.adv_estimator == advantages.NAME
        flag = self.success_field()
        success = self.success_flags(batch, flag) if flag is not None and ours else None
        anchors = self.anchor_states(batch) if self.shaper.uses_anchors and ours else None
        step_rewards = None
        if self.shaper.step_reward_field is not None and ours:
            step_rewards = self.step_rewards(batch)
        elif ours:  # per-turn rewards under the documented name, which nothing reads: refused, not ignored
            names = {key for fields in self._extra_fields(batch) if isinstance(fields, Mapping) for key in fields}
            self.shaper.refuse_unread_step_rewards(names, "a row's extra_fields")
        with advantages.advantage_step(success, anchors, step_rewards) as step:
            batch = super()._compute_advantage(batch, metrics)
        metrics.update(advantage_metrics(self.shaper, step.stats))
        return batch

    def anchor_states(self, batch: Any) -> dict[str, list[Any]]:
        """Each row's anchor states (one per assistant turn of the row), by key: with ``anchor.by=state`` the
        list in its ``extra_fields[anchor.field]`` (the agent loop's); with ``tool_calls`` the tool calls made
        before each turn of its session, read from the responses (a session's outputs in their order). VERL's
        padding rows have no turn, so no state."""
        keys = [str(k) for k in batch.keys]
        if self.shaper.config.anchor_key == "state":
            return self.row_lists(batch, self.shaper.config.anchor.field, "anchor.by=state", "one state id")
        data = tq.kv_batch_get(keys=list(batch.keys), partition_id=batch.partition_id,
                               select_fields=["responses", "response_mask"]).to_padded_tensor()
        texts = turn_texts(data["response_mask"], data["responses"], self.tokenizer.decode)
        sessions: dict[str, list[tuple[int, int]]] = {}
        for row, (session, output) in enumerate(zip(*multi_output.sessions(keys), strict=True)):
            sessions.setdefault(session, []).append((output, row))
        out = {}
        for rows in sessions.values():
            rows.sort()
            states = iter(tool_call_anchors([text for _, row in rows for text in texts[row]]))
            for _, row in rows:
                out[keys[row]] = [next(states) for _ in texts[row]]
        return out

    def step_rewards(self, batch: Any) -> dict[str, list[Any]]:
        """Each row's per-turn rewards besides the outcome (``step_rewards.field``): the list in its
        ``extra_fields``, one reward per assistant turn of the row, by key."""
        field = self.shaper.step_reward_field
        assert field is not None
        return self.row_lists(batch, field, f"step_rewards.field={field}", "one reward")

    def row_lists(self, batch: Any, field: str, setting: str, each: str) -> dict[str, list[Any]]:
        """The list ``field`` of each row's ``extra_fields`` (the agent loop's), by key; VERL's padding rows have no
        turn, so an empty list. A real row without it is an error naming the row and where to put it."""
        out: dict[str, list[Any]] = {}
        tags = batch.tags
        for key, tag, fields in zip((str(k) for k in batch.keys), tags, self._extra_fields(batch), strict=True):
            value = fields.get(field) if isinstance(fields, Mapping) else None
            if tag.get("is_padding", False):
                out[key] = []
            elif value is None or isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
                raise ValueError(f"{setting}: row {key!r} has no list {field!r} in its extra_fields; the agent loop "
                                 f"stores {each} per assistant turn of the row there "
                                 f"(agent_data.extra_fields[{field!r}])")
            else:
                out[key] = list(value.tolist() if hasattr(value, "tolist") else value)
        return out

    def _extra_fields(self, batch: Any) -> list[Any]:
        data = tq.kv_batch_get(keys=list(batch.keys), partition_id=batch.partition_id, select_fields=["extra_fields"])
        extra = data["extra_fields"]
        return extra.tolist() if hasattr(extra, "tolist") else list(extra)

    def success_field(self) -> str | None:
        """The ``reward_extra_info`` field that holds each row's success, where it is read from the rows: the
        ``success.flag`` of ``by=flag``; in the async modes, ``by=pass`` reads the reward's ``acc``."""
        if self.shaper.success_flag is not None:
            return self.shaper.success_flag
        if self.shaper.config.success.by == "pass" and self.mode != SYNC:
            return PASS_FLAG
        return None

    def success_flags(self, batch: Any, flag: str) -> dict[str, bool]:
        """Each row's ``flag`` from its ``reward_extra_info``, by key (VERL's padding rows: False, as their zero
        reward reads). A row without it, or with a value that is not 0/1, is an error naming both."""
        extra = self._extra_fields(batch)
        keys = [str(k) for k in batch.keys]
        values: list[Any] = []
        for key, tag, fields in zip(keys, batch.tags, extra, strict=True):
            info = fields.get(REWARD_EXTRA_INFO) if isinstance(fields, Mapping) else None
            if tag.get("is_padding", False):
                values.append(False)
            elif isinstance(info, Mapping) and flag in info:
                values.append(info[flag])
            else:
                raise ValueError(f"{self._flag_setting(flag)}: row {key!r} has no {flag!r} in its {REWARD_EXTRA_INFO}; "
                                 f"the reward must return it with every score, e.g. {{'score': ..., '{flag}': 1}}")
        try:
            return dict(zip(keys, self._flags(values).tolist(), strict=True))
        except ValueError:  # say which row: the first one the rule refuses on its own
            for key, value in zip(keys, values, strict=True):
                try:
                    self._flags([value])
                except ValueError:
                    raise ValueError(f"{self._flag_setting(flag)}: row {key!r} has {flag}={value!r} in its "
                                     f"{REWARD_EXTRA_INFO}; a success flag is 0/1 (or True/False)") from None
            raise

    def _flag_setting(self, flag: str) -> str:
        by = self.shaper.config.success.by
        return f"success.flag={flag!r}" if by == "flag" else f"success.by={by} in {self.mode} (the rows' {flag!r})"

    def _flags(self, values: list[Any]) -> np.ndarray:
        """The facade's success rule on the trainer's flags (0/1 or True/False; anything else is refused)."""
        return self.shaper.success_of(np.zeros(len(values)), 0, np.asarray(values, dtype=object))

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
        out = self.shaper.logged_means(e.get(REWARD_EXTRA_INFO) if isinstance(e, Mapping) else None for e in extra)
        missing = [n for n in self.shaper.metric_names if n not in out]
        if missing and not self._warned_missing:
            logger.warning("planshape trainer: %d planshape metric(s) are in no row's reward_extra_info (e.g. %s): "
                           "is the reward planshape's (reward.reward_manager.name=planshape)?", len(missing),
                           missing[0])
            self._warned_missing = True
        return out


class PlanshapeTrainer(PlanshapeSteps, PPOTrainerSync):
    """``trainer.v1.trainer_mode=planshape``: VERL's sync trainer plus planshape's metrics."""

    mode = SYNC


class PlanshapeColocateAsyncTrainer(PlanshapeSteps, PPOTrainerColocateAsync):
    """``trainer.v1.trainer_mode=planshape_colocate_async``: VERL's colocate_async trainer plus planshape's."""

    mode = "colocate_async"


class PlanshapeSeparateAsyncTrainer(PlanshapeSteps, PPOTrainerSeparateAsync):
    """``trainer.v1.trainer_mode=planshape_separate_async``: VERL's separate_async trainer plus planshape's."""

    mode = "separate_async"


TRAINERS: dict[str, type[PlanshapeSteps]] = {
    TRAINER_NAME: PlanshapeTrainer,
    f"{TRAINER_NAME}_colocate_async": PlanshapeColocateAsyncTrainer,
    f"{TRAINER_NAME}_separate_async": PlanshapeSeparateAsyncTrainer,
}
MODES = {name: cls.mode for name, cls in TRAINERS.items()}  # planshape's mode name -> VERL's


finish_registration()
