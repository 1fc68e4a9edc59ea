"""TravelPlanner as a TRL ``environment_factory`` class: the seven tools as methods, ``get_reward`` from planshape.

    trainer = EnvironmentGRPOTrainer(model, args=config, train_dataset=to_dataset(records, shaper),
                                     environment_factory=travelplanner_env(shaper))

Beside the ``tools=planner_tools(shaper)`` path, and a translation of the facade's ``Episode`` (prompt, toolbox,
reward): ``reset(**row)`` starts an episode on the row's query, each tool method is one toolbox call, and
``get_reward()`` is the facade's score of the trajectory's final message at the step it was generated.

TRL's tool loop never shows an environment that final message (it ends the rollout when a reply has no tool
call), and Planner-R1's answer is that message, not a tool call. ``EnvironmentAnswers`` hands it over in
``_calculate_rewards``, where TRL has the completions, before the rewards are read: mix it into the trainer
(``EnvironmentGRPOTrainer`` is ``GRPOTrainer`` with it). Without it ``get_reward`` fails, saying so, instead of
training on a reward that never saw the answer. The reward is logged as ``rewards/planshape/mean`` and every
``planshape/...`` metric as the ``reward_funcs`` path logs them.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, ClassVar

from .version import check_version

check_version()  # before anything of TRL is imported: a missing or unsupported TRL says what to install

from planshape.shaping.facade import Episode, SampleScore, Shaper, trainer_step  # noqa: E402
from trl import GRPOTrainer  # noqa: E402

from .reward import QUERY_COLUMN, TRAINER_KWARGS, final_turn  # noqa: E402
from .tools import describe  # noqa: E402

REWARD_NAME = "planshape"  # TRL logs an environment's reward under its class name: rewards/planshape/mean
ROW_KEYS = TRAINER_KWARGS | {"prompt", "completion"}


class TravelPlannerEnv:
    """One pooled TRL environment (TRL builds one per rollout, then ``reset``s it): bind a shaper with
    ``travelplanner_env(shaper)``. Public methods are TRL's tools, so everything else here is private."""

    shaper: ClassVar[Shaper]
    max_turns: ClassVar[int | None] = None  # GRPOConfig.max_tool_calling_iterations caps TRL's loop

    def __init__(self) -> None:
        self._episode = Episode(self.shaper, max_turns=self.max_turns)

    def reset(self, **row: Any) -> None:
        """Start an episode on the row's query: its ``planshape_query`` column, else its TravelPlanner columns.
        Returns None: the dataset's prompt is already the training prompt."""
        query = row[QUERY_COLUMN] if QUERY_COLUMN in row else {k: v for k, v in row.items() if k not in ROW_KEYS}
        self._episode.reset(query)

    def get_reward(self) -> float:
        """The facade's reward of the final message handed over by ``EnvironmentAnswers``."""
        if self._episode.score is None:
            raise RuntimeError("TravelPlannerEnv scores the trajectory's final message, which TRL's GRPOTrainer "
                               "does not show an environment: train with planshape.adapters.trl."
                               "EnvironmentGRPOTrainer, or put EnvironmentAnswers before your GRPOTrainer class")
        return self._episode.score.reward

    def _answer(self, completion: Any, step: int) -> SampleScore:
        """Score the rollout's final message (a conversation or text) at ``step``; the episode keeps it. A final
        message that still calls a tool is a rollout TRL's loop cut (``max_tool_calling_iterations``, or the
        completion length): unanswered, and it says so."""
        if _calls_tools(completion):
            return self._episode.end(CUT, step)
        return self._episode.finish(final_turn(completion), step)


CUT = ("TRL's tool loop ended the rollout on a tool call, before a final answer (max_tool_calling_iterations or "
       "max_completion_length)")


def _calls_tools(completion: Any) -> bool:
    """Whether a conversation's last assistant message makes tool calls."""
    if not isinstance(completion, list):
        return False
    last = next((m for m in reversed(completion) if isinstance(m, Mapping) and m.get("role") == "assistant"), None)
    return bool(last and last.get("tool_calls"))


def _tool_method(schema: Mapping[str, Any]):
    """One toolbox tool as a method, its signature and docstring saying what ``schema`` says (TRL derives the
    schema the model sees from them)."""
    name = schema["function"]["name"]

    def method(self: TravelPlannerEnv, **arguments: Any) -> str:
        return self._episode.call(name, arguments)

    return describe(method, schema, inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD))


def travelplanner_env(shaper: Shaper, max_turns: int | None = None) -> type[TravelPlannerEnv]:
    """The environment class for ``environment_factory=``: ``TravelPlannerEnv`` bound to ``shaper``, with one
    method per tool of ``shaper.tool_schemas``. ``max_turns``: the facade's own cap (default: TRL's
    ``max_tool_calling_iterations`` alone caps the loop)."""
    members: dict[str, Any] = {s["function"]["name"]: _tool_method(s) for s in shaper.tool_schemas}
    members.update(shaper=shaper, max_turns=max_turns, __module__=__name__, __qualname__=REWARD_NAME)
    return type(REWARD_NAME, (TravelPlannerEnv,), members)


class EnvironmentAnswers:
    """Put before a ``GRPOTrainer`` (sub)class: each ``TravelPlannerEnv`` of the batch gets its rollout's final
    message (scored at ``state.global_step``) before TRL reads ``get_reward``, and every ``planshape/...``
    metric of the batch is logged."""

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        environments = self.environments or [None] * len(completions)
        pairs = [(env, completion) for env, completion in zip(environments, completions, strict=True)
                 if isinstance(env, TravelPlannerEnv)]
        if pairs:
            step = trainer_step(self.state.global_step, "trainer_state.global_step")
            scores = [env._answer(completion, step) for env, completion in pairs]
            for name, value in pairs[0][0].shaper.metric_means(scores).items():
                self._log_metric(name, value)
        return super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)


class EnvironmentGRPOTrainer(EnvironmentAnswers, GRPOTrainer):
    """TRL's ``GRPOTrainer`` whose ``TravelPlannerEnv`` environments see their rollouts' final messages."""
