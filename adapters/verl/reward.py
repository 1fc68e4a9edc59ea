"""Planner-R1 rewards for VERL's reward loop: ``compute_score`` and the step-aware ``planshape`` manager.

Two ways in (docs in ``adapters/verl/examples/README.md``):

* ``reward.reward_manager.name=planshape`` (recommended): the manager reads the real training step from the
  row's ``global_steps`` (V1 trainers put it on every prompt; it reaches the ``RewardLoopWorker`` processes,
  where VERL's own ``SkipManager.step`` is never set), so staged schedules switch at the right step, and
  takes its settings from the one planshape block, ``algorithm.planpo``.
* ``reward.custom_reward_function.path=pkg://planshape.adapters.verl.reward`` with VERL's ``naive`` manager:
  fine for one fixed stage (``+reward.custom_reward_function.reward_kwargs.planshape.schedule=stage2``); the
  naive manager passes no step, so a multi-stage schedule is refused there rather than silently frozen.

Either way the reward parses the FINAL assistant turn: VERL's ``solution_str`` is the whole decoded response,
tool observations included, so anything after the last tool response is the model's last word.
Every call returns the same keys: ``score``, ``acc`` (the final pass, which VERL's validation reports as
``val-core/.../acc``), ``failure`` (a countable category, "" when the plan passes) and every name of
``Shaper.metric_names``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .version import check_version, finish_registration

check_version()  # one line naming the range outside it, before VERL's own imports can fail obscurely

from planshape.shaping.facade import SampleScore, Shaper, steps_completed  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.experimental.reward_loop.reward_manager.base import RewardManagerBase  # noqa: E402

from .config import run_shaper, trainer_block  # noqa: E402
from .settings_refused import PLANPO, refuse, reward_refusals  # noqa: E402

MANAGER_NAME = "planshape"
TOOL_RESPONSE_END = "</tool_response>"  # Hermes/Qwen chat templates close every tool observation with it
STEP_KEY = "global_steps"


def final_turn(solution_str: Any) -> str:
    """The text after the last tool observation: the final assistant turn of a decoded multi-turn response."""
    if not isinstance(solution_str, str):
        return ""
    cut = solution_str.rfind(TOOL_RESPONSE_END)
    return solution_str if cut < 0 else solution_str[cut + len(TOOL_RESPONSE_END):]


def row_step(extra_info: Any) -> int | None:
    """The step of a row's ``extra_info`` (``global_steps``, as V1 trainers set it), or None; a row field that
    is not what VERL writes raises ``ValueError`` naming it."""
    if extra_info is None:
        return None
    if not isinstance(extra_info, Mapping):
        raise ValueError(f"extra_info must be a mapping (VERL's per-row dict), got {type(extra_info).__name__}")
    return steps_completed(extra_info.get(STEP_KEY), f"extra_info.{STEP_KEY}")


def row_label(reward_model: Any) -> Any:
    """The query label of a row: ``reward_model.ground_truth`` (what ``planshape verl prepare-data`` writes)."""
    if not isinstance(reward_model, Mapping) or "ground_truth" not in reward_model:
        raise ValueError("reward_model must be a mapping with the query as 'ground_truth' (write the data with "
                         f"`planshape verl prepare-data`), got {type(reward_model).__name__}")
    return reward_model["ground_truth"]


def rewards(shaper: Shaper, outputs: Sequence[Any], labels: Sequence[Any], step: int) -> list[SampleScore]:
    """The reward entry (the adapter contract): each decoded response's final turn (``final_turn``) scored with
    its row's label, one row at a time, as VERL's reward loop scores rows."""
    return [shaper.score(final_turn(text), label, step) for text, label in zip(outputs, labels, strict=True)]


def reward_fields(reward: float, success: bool, failure: str, metrics: Mapping[str, float]) -> dict[str, Any]:
    """The fixed-key result VERL stores as ``reward_extra_info``: ``score``, ``acc``, ``failure`` and every metric."""
    return {"score": float(reward), "acc": float(success), "failure": failure, **metrics}


def score_fields(shaper: Shaper, solution_str: Any, ground_truth: Any, step: int) -> dict[str, Any]:
    """One row's ``reward_extra_info``: its ``rewards`` entry."""
    (scored,) = rewards(shaper, [solution_str], [ground_truth], step)
    return reward_fields(scored.reward, scored.success, scored.failure, scored.metrics())


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Mapping | None = None,
                  planshape: Any = None, step: int | None = None, **verl_kwargs: Any) -> dict[str, Any]:
    """VERL's ``compute_score`` contract (keyword call, extra keys such as ``reward_router_address`` ignored).

    ``planshape`` (the settings) and ``step`` come from ``reward_kwargs``; the ``planshape`` manager fills
    ``step`` from the row. Without a step, only a one-stage schedule is allowed.
    """
    if planshape is None:
        raise ValueError("compute_score needs the planshape settings: add "
                         "+reward.custom_reward_function.reward_kwargs.planshape.database=/path/to/database "
                         "(or use reward.reward_manager.name=planshape, which reads algorithm.planpo)")
    shaper = run_shaper(planshape)
    if step is None:
        step = row_step(extra_info)
    if step is None:
        if shaper.staged:
            raise ValueError("the schedule has several stages but no training step reaches compute_score under "
                             "VERL's naive reward manager: use reward.reward_manager.name=planshape, or a "
                             "one-stage schedule (e.g. reward_kwargs.planshape.schedule=stage1)")
        step = 0
    return score_fields(shaper, solution_str, ground_truth, step)


class PlanshapeRewardManager(RewardManagerBase):
    """Scores each trajectory with the ``algorithm.planpo`` settings at the row's real training step."""

    def __init__(self, config: Any, tokenizer: Any, compute_score: Any = None, reward_router_address: Any = None,
                 reward_model_tokenizer: Any = None):
        # Same signature as VERL's managers; ``compute_score`` (VERL's default or a custom one) is not used.
        super().__init__(config, tokenizer, compute_score)
        self.shaper = run_shaper(trainer_block(config))
        if str(config.algorithm.get("adv_estimator")) == PLANPO:  # the block also drives the estimator: ask now
            self.shaper.require_estimator(f"algorithm.adv_estimator={PLANPO}")
        refuse(reward_refusals(config, self.shaper, "planshape"))  # a reward setting this manager would drop

    def step_for(self, non_tensor_batch: Mapping[str, Any]) -> int:
        values = non_tensor_batch.get(STEP_KEY)
        step = steps_completed(values[-1]) if values is not None and len(values) else None
        if step is not None:
            return step
        if self.shaper.staged:
            raise RuntimeError("the planshape reward manager got no 'global_steps' with the trajectory, so a staged "
                               "schedule cannot switch: VERL 0.9's V1 trainer (trainer.use_v1=true, the default) "
                               "provides it; the legacy trainer does not - use a one-stage schedule there")
        return 0

    async def run_single(self, data: DataProto) -> dict:
        last = data[-1]  # multi-output trajectories: the last output carries the answer, as in VERL's managers
        responses = last.batch["responses"]
        length = int(last.batch["attention_mask"][-responses.shape[-1]:].sum())
        ground_truth = row_label(last.non_tensor_batch.get("reward_model"))
        step = self.step_for(data.non_tensor_batch)
        text = await self.loop.run_in_executor(
            None, lambda: self.tokenizer.decode(responses[:length], skip_special_tokens=True))
        fields = await self.loop.run_in_executor(None, score_fields, self.shaper, text, ground_truth, step)
        return {"reward_score": fields["score"], "reward_extra_info": fields}


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import Rewards

    _contract: Rewards = rewards

finish_registration()
