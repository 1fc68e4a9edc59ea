"""planshape's estimators (PlanPO, GRPO, GiGPO, RLOO) inside OpenRLHF: a wrapper of
``RemoteExperienceMaker.compute_advantages_and_returns``.

OpenRLHF 0.11 chooses its estimator from a fixed list and has no registry, so the run keeps a valid built-in
estimator (``group_norm``) and this wrapper, installed in the trainer actor by ``register``:

1. weighs every sample at the trainer's step (the rollout side cannot know it) from the reward components its
   rollout side checked once and carried in ``info`` (``Shaper.carried`` / ``weigh_carried``), so a staged
   schedule follows training and the logged metrics are the ones the advantages use; in estimator-only use (a
   config without a database: any reward function or agent) the run's own rewards are kept, and success is
   ``rewards >= success.threshold`` or the 0/1 ``scores`` the reward function returned (``success.flag: scores``);
2. calls OpenRLHF's own method, which promotes the rewards to FP32, applies its length penalties to them
   (``--reward.overlong_buffer_len``, ``--reward.stop_properly_penalty_coef``) and logs the group std;
3. overwrites ``advantages`` and ``returns`` with the facade's per-token advantages, computed over the whole
   batch from those penalised rewards (a group's samples are spread over micro-batches of different widths;
   group id = ``index // n``) and bounded by ``--reward.clip_range``, as OpenRLHF bounds its group-normalised
   reward (which is every token's advantage under ``group_norm``). Success stays the task's: it is judged
   before the penalties.

Per-turn rewards (``step_rewards.field``, estimator-only): the agent logs each step's reward beside the summed one
(``turn_rewards``); the earlier turns' are the per-turn rewards, the rest of the sample's (penalised) reward the
outcome, which also decides success.

The step is ``global_step`` as ``BasePPOTrainer.train_step`` receives it (restored on resume), recorded on the
experience maker by an instance-level wrapper: Ray copies inherited methods onto actor classes, so a
class-level patch of ``train_step`` would never be seen inside the actor.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from planshape.shaping.facade import (
    PREFIX,
    ConfigError,
    Shaper,
    TokenAdvantages,
    tool_call_anchors,
    trainer_step,
    turn_texts,
)

from .config import check_anchors, check_step_rewards, check_success_flag, global_steps, shaper_from_env
from .turn_rewards import logged_turn_rewards, split_outcome
from .version import check_version

check_version()

STEP = "_planshape_step"
SHAPER = "_planshape_shaper"
PATCHED = "_planshape_patched"


ESTIMATOR_FLAG = "group_norm"
"""The one OpenRLHF estimator flag under the hook: what its override computes (group-normalised advantages)."""


def check_trainer_args(args: Any) -> None:
    """Refuse, at trainer start-up, an OpenRLHF configuration whose result the override would silently change."""
    estimator = args.algo.advantage.estimator
    if estimator != ESTIMATOR_FLAG:
        why = (" (it trains a critic on returns planshape overwrites)" if estimator == "gae" else
               ": OpenRLHF would compute those, then planshape overwrites them, so the run would not be what the "
               "flag says")
        raise ConfigError(f"--algo.advantage.estimator {estimator}: planshape's advantages (its configured "
                          f"estimator, group-normalised) replace OpenRLHF's{why}; use --algo.advantage.estimator "
                          f"{ESTIMATOR_FLAG}")
    if args.rollout.n_samples_per_prompt < 2:
        raise ConfigError("planshape's advantages compare the samples of a group: set "
                          f"--rollout.n_samples_per_prompt >= 2 (got {args.rollout.n_samples_per_prompt})")
    if not args.algo.kl.use_loss and args.algo.kl.init_coef != 0:
        raise ConfigError("planshape overwrites OpenRLHF's advantages, so a KL penalty folded into the reward "
                          f"(--algo.kl.init_coef {args.algo.kl.init_coef} without --algo.kl.use_loss) would be "
                          "lost: add --algo.kl.use_loss (KL as a loss term), or set --algo.kl.init_coef 0")
    if args.reward.normalize_enable:
        raise ConfigError("--reward.normalize_enable normalises a reward model's scores, and a planshape run has "
                          "none: OpenRLHF builds no reward model when the reward comes from a function "
                          "(--reward.remote_url or --train.agent_func_path), so the flag would change nothing; "
                          "drop it")
    low, high = args.reward.clip_range
    if not low < high:
        raise ConfigError(f"--reward.clip_range {low} {high}: the advantages are clamped to [low, high], so low "
                          "must be below high")


def reweigh(shaper: Shaper, experiences: Sequence[Any], step: int) -> list[torch.Tensor]:
    """Every sample's reward and success at ``step``, from what its rollout side carried in ``info``; writes
    ``rewards`` and the logged metrics (carried keys the config does not log are dropped) and returns each
    micro-batch's success flags."""
    successes = []
    for exp in experiences:
        carried = {k: v for k, v in exp.info.items() if k.startswith(PREFIX)}
        try:
            weighed = shaper.weigh_carried({k: torch.as_tensor(v).double().reshape(-1).numpy()
                                            for k, v in carried.items()}, step)
        except ValueError as exc:  # the launch's reward is not planshape's: say which files to use
            raise ValueError(f"{exc}: point --reward.remote_url or --train.agent_func_path at the files "
                             "`planshape openrlhf files` writes") from None
        exp.rewards = torch.as_tensor(weighed.reward, dtype=torch.float32)
        exp.info["reward"] = exp.rewards.clone()  # what OpenRLHF logs as the reward: the one trained on
        for name in carried:
            exp.info.pop(name)
        for name, column in weighed.metrics.items():
            exp.info[name] = torch.as_tensor(column, dtype=torch.float32)
        successes.append(torch.as_tensor(weighed.success))
    return successes


def task_success(shaper: Shaper, experiences: Sequence[Any], step: int,
                 logged: list[list[float]] | None = None) -> torch.Tensor:
    """Estimator-only success from the run's own rewards (threshold; with per-turn rewards ``logged``, the outcome
    alone) or its ``scores`` (flag)."""
    rewards = torch.cat([exp.rewards.float().reshape(-1) for exp in experiences]).double().numpy()
    if logged is not None:
        rewards = split_outcome(rewards, logged)[0]
    passed = None
    if shaper.success_flag is not None:
        passed = torch.cat([torch.as_tensor(exp.scores).float().reshape(-1) for exp in experiences]).numpy()
    return torch.as_tensor(shaper.success_of(rewards, step, passed))


def tool_call_states(tokenizer: Any, exp: Any) -> list[list[str]]:
    """Each sample's anchor state per assistant turn: the tool calls made before it, read from the turns' text
    (``action_mask`` is shifted by one against ``sequences``)."""
    ids = exp.sequences[:, 1:1 + exp.action_mask.shape[1]]
    texts = turn_texts(exp.action_mask, ids, lambda turn: tokenizer.decode(turn, skip_special_tokens=False))
    return [tool_call_anchors(turns) for turns in texts]


def token_advantages(shaper: Shaper, scores: Any, mask: torch.Tensor, index: Any, step: int, success: Any = None,
                     anchors: Sequence[Sequence[Any]] | None = None,
                     step_rewards: Sequence[Sequence[float]] | None = None, *,
                     clip: Sequence[float] | None = None) -> TokenAdvantages:
    """The estimator entry (the adapter contract): the facade's per-token advantages of OpenRLHF's batch, each bounded
    by ``clip`` (``--reward.clip_range``, as OpenRLHF bounds its group-normalised reward) where the mask is on; off
    it, 0 stays 0 whatever the bounds."""
    result = shaper.advantages(scores, mask, index, step, success, anchors=anchors, step_rewards=step_rewards)
    if clip is None:
        return result
    return replace(result, tokens=torch.where(mask.bool(), result.tokens.clamp(min=clip[0], max=clip[1]),
                                              result.tokens))


def write_advantages(shaper: Shaper, experiences: Sequence[Any], n_samples: int, step: int,
                     success: torch.Tensor | None = None, clip: Sequence[float] | None = None,
                     tokenizer: Any = None, logged: list[list[float]] | None = None) -> None:
    """Per-token advantages of the whole batch from the facade, estimated from the experiences' ``rewards``
    and written back micro-batch by micro-batch; ``clip``: the (low, high) bound of every token's advantage;
    ``tokenizer``: to read GiGPO's anchor states from the turns (``check_anchors``); ``logged``: each sample's
    per-turn rewards (``turn_rewards``), split from its reward into the outcome and the rewards besides it."""
    widths = [exp.action_mask.shape[1] for exp in experiences]
    sizes = [exp.action_mask.shape[0] for exp in experiences]
    mask = torch.zeros(sum(sizes), max(widths), dtype=torch.long)
    row = 0
    for exp, size, width in zip(experiences, sizes, widths, strict=True):
        mask[row:row + size, :width] = exp.action_mask.long()
        row += size
    index = np.asarray([i for exp in experiences for i in exp.index], dtype=np.int64) // n_samples
    scores = torch.cat([exp.rewards.float().reshape(-1) for exp in experiences])
    steps = None
    if logged is not None:
        outcome, steps = split_outcome(scores.double().numpy(), logged)
        scores = torch.as_tensor(outcome)
    anchors = None
    if shaper.uses_anchors:
        anchors = [states for exp in experiences for states in tool_call_states(tokenizer, exp)]
    result = token_advantages(shaper, scores, mask, index, step, None if success is None else success.numpy(),
                              anchors, steps, clip=clip)
    tokens = result.tokens.split(sizes)
    for exp, block, width in zip(experiences, tokens, widths, strict=True):
        exp.advantages = block[:, :width].to(torch.float32).contiguous()
        exp.returns = exp.advantages.clone()
        for name, value in result.stats.items():
            exp.info[name] = torch.full((exp.action_mask.shape[0],), float(value))


def wrap_compute_advantages(original: Callable[..., Any]) -> Callable[..., Any]:
    """``compute_advantages_and_returns`` with planshape's rewards and advantages (module docstring)."""

    @functools.wraps(original)
    def compute_advantages_and_returns(self: Any, experiences: list[Any]) -> list[Any]:
        shaper: Shaper = getattr(self, SHAPER)
        step = int(getattr(self, STEP, 0))
        logged = logged_turn_rewards(shaper, experiences)
        if shaper.estimator_only:
            success = task_success(shaper, experiences, step, logged)
        else:
            success = torch.cat(reweigh(shaper, experiences, step))
        experiences = original(self, experiences)  # FP32 rewards, then OpenRLHF's length penalties on them
        write_advantages(shaper, experiences, self.args.rollout.n_samples_per_prompt, step, success,
                         self.args.reward.clip_range, self.tokenizer, logged)
        return experiences

    setattr(compute_advantages_and_returns, PATCHED, True)
    return compute_advantages_and_returns


def wrap_trainer_init(original: Callable[..., None]) -> Callable[..., None]:
    """``BasePPOTrainer.__init__`` that checks the run, gives the experience maker its ``Shaper`` and installs
    the instance-level ``train_step`` wrapper that records ``global_step``."""

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807 - it replaces __init__
        original(self, *args, **kwargs)
        check_trainer_args(self.args)
        maker = self.experience_maker
        loader = getattr(self, "prompts_dataloader", None)  # PPOTrainer has one; the async TrainingActor not
        prompts = len(loader.dataset) if loader is not None and hasattr(loader, "dataset") else None
        shaper = shaper_from_env(global_steps(self.args, prompts))
        shaper.require_estimator("the planshape setup hook")
        check_success_flag(shaper)
        check_anchors(shaper)
        check_step_rewards(shaper)
        setattr(maker, SHAPER, shaper)
        train_step = self.train_step

        @functools.wraps(train_step)
        def recorded_train_step(rollout_samples: Any, global_step: int) -> Any:
            setattr(maker, STEP, trainer_step(global_step, "global_step"))
            return train_step(rollout_samples, global_step)

        self.train_step = recorded_train_step

    setattr(__init__, PATCHED, True)
    return __init__


def patch_openrlhf() -> None:
    """Apply both wrappers (idempotent). Runs in the trainer process once ``openrlhf.trainer.ppo_trainer`` exists."""
    from openrlhf.trainer.ppo_trainer import BasePPOTrainer
    from openrlhf.trainer.ppo_utils.experience_maker import RemoteExperienceMaker

    if not getattr(RemoteExperienceMaker.compute_advantages_and_returns, PATCHED, False):
        RemoteExperienceMaker.compute_advantages_and_returns = wrap_compute_advantages(
            RemoteExperienceMaker.compute_advantages_and_returns)
    if not getattr(BasePPOTrainer.__init__, PATCHED, False):
        BasePPOTrainer.__init__ = wrap_trainer_init(BasePPOTrainer.__init__)


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import TokenAdvantagesFn

    _contract: TokenAdvantagesFn = token_advantages
