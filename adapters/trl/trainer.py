"""``GRPOTrainer`` with planshape's per-token advantages (PlanPO; GRPO, GiGPO or RLOO through the same path).

TRL 1.16 computes advantages inline in ``_generate_and_score_completions`` and offers no hook for them
(huggingface/trl#4525: subclass, call ``super()``, replace ``output["advantages"]``). This mixin does exactly
that, and only translates:

* scores: TRL's own scalar reward, ``nansum(reward_weights * rewards_per_func)`` over the gathered batch
  (kept from ``_calculate_rewards``); success: the planshape column of that batch, read by the facade; in
  estimator-only use (``planshape=`` a config without a database, any ``reward_funcs``), the scalar reward
  against ``success.threshold``, or the 0/1 column of the reward function ``success.flag`` names;
* turns: runs of 1s in ``completion_mask * tool_mask`` (tool results are 0), gathered across processes;
* groups: contiguous blocks of ``num_generations`` in the gathered order (TRL's own ``view(-1, G)``);
* step: ``state.global_step`` at generation time, so α is frozen over a reuse window
  (``steps_per_generation``, ``num_iterations``);
* anchor states (GiGPO): the tool calls made before each turn, decoded from the completions
  (``anchor.by=tool_calls``), or per-turn ids from a ``rollout_func`` field or the environment (``state``);
* per-turn rewards besides the outcome (``step_rewards.field``): a ``rollout_func`` field or the environment's
  attribute of that name, one reward per assistant turn of the completion (the reward functions give the outcome);

then slices this process's rows back out as a (B, T) tensor, which ``_compute_loss`` uses as it is. With
``estimator: grpo`` the facade is set to TRL's normalisation (ε = 1e-4, std on unless ``scale_rewards="none"``)
and reproduces TRL's advantages.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .version import check_trainer

check_trainer()  # before anything of TRL is imported: a missing or unsupported TRL says what to install

import torch  # noqa: E402
from accelerate.utils import gather_object  # noqa: E402
from planshape.shaping.facade import (  # noqa: E402
    ConfigError,
    Shaper,
    TokenAdvantages,
    tool_call_anchors,
    turn_texts,
)
from trl import GRPOTrainer  # noqa: E402

from .config import run_shaper  # noqa: E402
from .reward import PlanshapeReward  # noqa: E402

logger = logging.getLogger(__name__)

TRL_GRPO_EPS = 1e-4  # the ε TRL adds to the group std (grpo_trainer.py, advantage block)
SIGN_GATED_LOSSES = ("sapo", "vespo")


class PlanPOMixin:
    """Put before a ``GRPOTrainer`` (sub)class: ``class T(PlanPOMixin, GRPOTrainer)``.

    The shaping configuration is the one of the ``PlanshapeReward`` in ``reward_funcs`` (there must be one), or,
    for any other task, ``planshape=``: an estimator-only config (mapping, file, text) or ``Shaper``.
    """

    shaper: Shaper
    if TYPE_CHECKING:  # what the GRPOTrainer this mixes into provides
        args: Any
        reward_funcs: list[Any]
        reward_func_names: list[str]
        _logs: dict[str, Any]
        accelerator: Any
        processing_class: Any
        environments: list[Any] | None

    def __init__(self, *args: Any, planshape: Any = None, **kwargs: Any) -> None:
        # Forwards the trainer's own constructor unchanged; the checks below need its resolved arguments.
        super().__init__(*args, **kwargs)
        if planshape is None:
            self._planshape_column: int | None = planshape_column(self.reward_funcs)
            shaper = self.reward_funcs[self._planshape_column].shaper
        else:
            self._planshape_column = None
            shaper = planshape if isinstance(planshape, Shaper) else run_shaper(planshape, self.args.max_steps)
            if not shaper.estimator_only:
                raise ConfigError("planshape= is for a task of your own (a config without database); to train on "
                                  "TravelPlanner put a PlanshapeReward in reward_funcs instead")
        self.shaper = checked_shaper(shaper, self.args)
        self._planshape_flag = flag_column(self.shaper, self.reward_func_names)
        self._planshape_rewards: torch.Tensor | None = None
        self._planshape_steps: list[list[Any]] = []

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        # Keep the gathered (B_global, F) rewards: TRL's scalar reward and the success flags come from them.
        self._planshape_rewards = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        if self.shaper.uses_anchors and self.shaper.config.anchor_key == "state":  # rollout_func fields merged by now
            self._planshape_states = local_states(self.shaper.config.anchor.field, inputs, self.environments)
        field = self.shaper.step_reward_field
        environments = getattr(self, "environments", None)  # a release without environment_factory has none
        if field is not None:
            self._planshape_steps = local_lists(field, inputs, environments, f"step_rewards.field={field}",
                                                "one reward", "")
        else:  # per-turn rewards under the documented name, which nothing reads: refused, not ignored
            names = {key for row in inputs if isinstance(row, dict) for key in row}
            names |= {name for env in environments or [] for name in getattr(env, "__dict__", {})}
            self.shaper.refuse_unread_step_rewards(names, "a completion (its rollout_func fields or environment)")
        return self._planshape_rewards

    def _generate_and_score_completions(self, inputs):
        output = super()._generate_and_score_completions(inputs)
        mode = "train" if self.model.training else "eval"
        group_size = self.num_generations if mode == "train" else self.num_generations_eval
        step = int(self.state.global_step)

        rewards = self._planshape_rewards
        scores = (rewards * self.reward_weights.to(rewards.device).unsqueeze(0)).nansum(dim=1)
        if self._planshape_flag is not None:  # the trainer's own per-sample flag: one reward function's column
            success = self.shaper.success_of(scores.cpu().numpy(), step,
                                             rewards[:, self._planshape_flag].cpu().numpy())
        else:
            column = scores if self._planshape_column is None else rewards[:, self._planshape_column]
            success = self.shaper.success_from_rewards(column.cpu().numpy(), step)

        mask = output["completion_mask"]
        if output.get("tool_mask") is not None:
            mask = mask * output["tool_mask"]
        local_rows, width = mask.shape
        full_mask = self.accelerator.gather(self.accelerator.pad_across_processes(mask, dim=1, pad_index=0))
        groups = (torch.arange(full_mask.shape[0]) // group_size).numpy()

        anchors = self._anchor_states(output, full_mask) if self.shaper.uses_anchors else None
        steps = gather_object(self._planshape_steps) if self.shaper.step_reward_field is not None else None
        result = token_advantages(self.shaper, scores, full_mask, groups, step, success=success, anchors=anchors,
                                  step_rewards=steps)
        start = self.accelerator.process_index * local_rows
        output["advantages"] = result.tokens[start:start + local_rows, :width].to(mask.device)

        for name, value in result.stats.items():
            self._metrics[mode][name].append(value)
        self._replace_logged_advantages(result.tokens, full_mask)
        return output

    def _anchor_states(self, output: dict, full_mask: torch.Tensor) -> list[list[Any]]:
        """Each gathered row's anchor state per assistant turn: the states kept from this batch's rows
        (``anchor.by=state``), or the tool calls made before each turn, read from the completions' tokens."""
        if self.shaper.config.anchor_key == "state":
            return gather_object(self._planshape_states)
        ids = output["completion_ids"]
        pad = self.processing_class.pad_token_id or 0
        full_ids = self.accelerator.gather(self.accelerator.pad_across_processes(ids, dim=1, pad_index=pad))
        texts = turn_texts(full_mask, full_ids[:, :full_mask.shape[1]], self.processing_class.decode)
        return [tool_call_anchors(turns) for turns in texts]

    def _replace_logged_advantages(self, tokens: torch.Tensor, mask: torch.Tensor) -> None:
        """The completions table shows each row's mean token advantage, not TRL's stock value it logged."""
        per_row = (tokens * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
        logged = self._logs["advantages"]
        for _ in range(min(len(per_row), len(logged))):
            logged.pop()
        logged.extend(per_row.tolist())


def token_advantages(shaper: Shaper, scores: Any, mask: torch.Tensor, index: Any, step: int, success: Any = None,
                     anchors: Sequence[Sequence[Any]] | None = None,
                     step_rewards: Sequence[Sequence[float]] | None = None) -> TokenAdvantages:
    """The estimator entry (the adapter contract): the facade's per-token advantages of TRL's gathered batch
    (groups: the contiguous blocks of ``num_generations``)."""
    return shaper.advantages(scores, mask, index, step, success=success, anchors=anchors, step_rewards=step_rewards)


class PlanPOTrainer(PlanPOMixin, GRPOTrainer):
    """``GRPOTrainer`` whose advantages are planshape's per-token advantages (see the module docstring)."""


def local_states(field: str, inputs: list[Any], environments: list[Any] | None) -> list[list[Any]]:
    """This process's rows' anchor states (``anchor.by=state``): ``local_lists`` of one state id per turn."""
    return local_lists(field, inputs, environments, "anchor.by=state", "one state id", "; or use anchor.by=tool_calls")


def local_lists(field: str, inputs: list[Any], environments: list[Any] | None, setting: str, each: str,
                otherwise: str) -> list[list[Any]]:
    """This process's rows' per-turn lists: the list ``field`` of each row, a field your ``rollout_func`` returned
    (TRL merges it into the rows), else the attribute ``field`` of the row's environment (``environment_factory``);
    ``each`` per assistant turn. A row without one is an error naming it and where to put it."""
    out = []
    for i, row in enumerate(inputs):
        value = row.get(field) if isinstance(row, dict) else None
        if value is None and environments is not None and i < len(environments):
            value = getattr(environments[i], field, None)
        if value is None or isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
            raise ValueError(f"{setting}: completion {i} has no list {field!r} ({each} per assistant turn): return "
                             f"it from your rollout_func, or keep it as the environment's attribute {field!r}"
                             f"{otherwise}")
        out.append(list(value))
    return out


def planshape_column(reward_funcs: list[Any]) -> int:
    """The position of the (single) planshape reward among the trainer's reward functions."""
    found = [i for i, f in enumerate(reward_funcs) if isinstance(f, PlanshapeReward)]
    if len(found) != 1:
        raise ConfigError(f"the PlanPO trainer needs exactly one PlanshapeReward in reward_funcs (it carries the "
                          f"shaping config and the success flags), found {len(found)}")
    return found[0]


def flag_column(shaper: Shaper, names: list[str]) -> int | None:
    """With ``success.by='flag'``, the position of the reward function it names (its values: 0 or 1 per sample)."""
    flag = shaper.success_flag
    if flag is None:
        return None
    if flag not in names:
        raise ConfigError(f"success.flag={flag!r} names no reward function of this trainer; its reward "
                          f"functions are {names} (a function's __name__; its 0/1 values are the success flags)")
    return names.index(flag)


def checked_shaper(shaper: Shaper, args: Any) -> Shaper:
    """The shaper the trainer estimates with: the reward's, checked against TRL's settings, and for GRPO set
    to TRL's normalisation where the config leaves it open."""
    config = shaper.config
    settings = config.model_dump()
    if args.multi_objective_aggregation != "sum_then_normalize":
        raise ConfigError(f"multi_objective_aggregation={args.multi_objective_aggregation!r}: the PlanPO trainer "
                          "estimates from the summed reward; use 'sum_then_normalize'")
    if config.estimator == "grpo":
        if args.scale_rewards not in ("group", "none"):
            raise ConfigError(f"scale_rewards={args.scale_rewards!r}: estimator 'grpo' normalises within each "
                              "group; use scale_rewards='group' (or 'none': no division by the std)")
        settings["estimator_options"] = {"eps": TRL_GRPO_EPS, "norm_by_std": args.scale_rewards == "group",
                                         **config.estimator_options}
    elif args.scale_rewards != "group":  # TRL's default: the one value that asks for nothing planshape drops
        raise ConfigError(f"scale_rewards={args.scale_rewards!r} is TRL's normalisation, which estimator "
                          f"{config.estimator!r} does not use: it normalises with its own options; set "
                          "estimator_options.norm in the planshape config ('std' or 'none') and leave "
                          "scale_rewards at 'group'")
    if config.estimator != "grpo" and (args.loss_type in SIGN_GATED_LOSSES
                                       or args.off_policy_mask_threshold is not None):
        logger.warning("loss_type=%s / off_policy_mask_threshold=%s gate on the sign of the advantage; with "
                       "per-token advantages that gate acts per token", args.loss_type,
                       args.off_policy_mask_threshold)
    trained = Shaper.from_mapping(settings, args.max_steps, "GRPOConfig.max_steps")  # re-validated
    trained.require_estimator("PlanPOTrainer")
    return shaper if trained.config == config else trained


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import TokenAdvantagesFn

    _contract: TokenAdvantagesFn = token_advantages
