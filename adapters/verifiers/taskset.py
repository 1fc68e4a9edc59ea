"""TravelPlanner as a verifiers taskset and env: the queries, the training prompt, the facade's reward.

* Dataset: ``queries`` (TravelPlanner files, or ``sample``), all of them or one half of Planner-R1's seeded
  re-split (``split``, ``val_size``, ``seed``: ``episode_records``). Each task's data is its query (JSON, as the
  reward reads it) and the training prompt: the versioned system prompt and the query text.
* Rubric: one reward, ``planshape`` (weight 1), the facade's ``SampleScore.reward`` of the final reply at
  ``step``; every ``planshape/...`` metric the trainers log (core, components, failure categories, monitor) as
  the trace's metrics; the failure category and reason in ``trace.info["planshape"]``.
* Env: one agent on verifiers' ``null`` harness (a chat loop with the toolset's MCP tools and no code execution,
  so the local ``subprocess`` runtime is safe) capped at ``max_turns`` = 30 model turns, Planner-R1's
  ``max_assistant_turns``: the 30th reply is final, as in training and ``planshape rollout``. Every model turn
  counts, whatever its calls; an episode the cap ended unanswered says so (``no_answer``, the turn cap as reason).
* Tool results: the toolbox's, for every call. The harness answers an unknown tool or arguments that are not a
  JSON object itself, and the MCP server validates argument names and types before the toolset runs; so the
  task's request hook (``toolbox_answers``) answers such a call first, through verifiers' tool gate, with the
  toolbox's ``Error: ...`` text, the same words a model reads in every other standard.

No TravelPlanner logic here: prompt, tools, toolbox and reward are the facade's.
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal

from .version import check_version

check_version()

import verifiers.v1 as vf  # noqa: E402
from planshape.shaping.facade import (  # noqa: E402
    MAX_TURNS,
    NO_ANSWER,
    SampleScore,
    Shaper,
    episode_records,
    query_json,
    shared_shaper,
    turn_cap_reason,
)
from pydantic import Field, field_validator  # noqa: E402
from verifiers.v1 import AssistantMessage, Request, ToolMessage  # noqa: E402

from .toolset import TravelPlannerToolsConfig, TravelPlannerToolset  # noqa: E402

SAMPLE = {"database": "sample"}
INFO_KEY = "planshape"


class TravelPlannerData(vf.TaskData):
    query: str
    """The TravelPlanner record's query fields as JSON (``query_json``): what the reward reads."""


class TravelPlannerTaskConfig(vf.TaskConfig):
    planshape: dict[str, Any] = Field(default_factory=lambda: dict(SAMPLE))
    """The planshape settings of the reward (set from the taskset's ``planshape``)."""
    step: int = Field(0, ge=0)
    """The step the reward's stage weights are read at (verifiers does not pass the trainer's step)."""


class TravelPlannerTask(vf.Task[TravelPlannerData, vf.State, TravelPlannerTaskConfig]):
    @vf.metric
    async def planshape(self, trace: vf.Trace) -> dict[str, float]:
        """Every metric name the trainers log, for this trace's final reply."""
        return self.planshape_score(trace).metrics()

    @vf.reward(weight=1.0)
    async def planshape_reward(self, trace: vf.Trace) -> dict[str, float]:
        """The facade's reward of the final reply (the last answer block counts), recorded as ``planshape``."""
        reward = self.planshape_score(trace).reward
        self.__dict__.get("_scores", {}).pop(trace.id, None)  # the metric ran first; both are done with it
        return {"planshape": reward}

    @vf.intercept
    async def toolbox_answers(self, request: Request) -> Request | None:
        """A tool result the toolset would not write (see the module docstring) replaced with the toolbox's
        answer to the call; None (unchanged) for every call the toolset runs."""
        result = request.messages[-1] if request.messages else None
        if not isinstance(result, ToolMessage):
            return None
        call = next((c for m in reversed(request.messages) if isinstance(m, AssistantMessage)
                     for c in m.tool_calls or () if c.id == result.tool_call_id), None)
        if call is None:
            return None
        text = toolbox_answer(shared_shaper(self.config.planshape), call.name, call.arguments)
        if text is None or result.content == text:
            return None
        answered = result.model_copy(update={"content": text})
        return request.model_copy(update={"messages": [*request.messages[:-1], answered]})

    def planshape_score(self, trace: vf.Trace) -> SampleScore:
        """The facade's score of the trace's final reply, once per trace (the metric and the reward share it);
        its failure category and reason go to ``trace.info["planshape"]`` (written to traces.jsonl)."""
        scores: dict[str, SampleScore] = self.__dict__.setdefault("_scores", {})
        if trace.id not in scores:
            shaper = shared_shaper(self.config.planshape)
            score = shaper.score(trace.last_reply, self.data.query, self.config.step)
            if score.failure == NO_ANSWER and trace.stop_condition == "max_turns":  # as in every standard
                score = shaper.unscored(self.config.step, NO_ANSWER, turn_cap_reason(trace.agent.config.max_turns),
                                        self.data.query)
            scores[trace.id] = score
            trace.info[INFO_KEY] = {"failure": score.failure, "reason": score.reason, "stage": score.stage,
                                    "components": dict(score.components)}
        return scores[trace.id]


class TravelPlannerConfig(vf.TasksetConfig):
    queries: list[str] = Field(default_factory=lambda: ["sample"])
    """TravelPlanner query files (Hugging Face CSV/JSONL/JSON), merged; ``sample``: the sample world's."""
    split: Literal["all", "train", "validation"] = "all"
    """Every query, or one half of Planner-R1's seeded re-split of them (180/45 of train + validation)."""
    val_size: int | None = None
    """Validation queries of the re-split (default 45, Planner-R1's)."""
    seed: int = 0
    planshape: dict[str, Any] = Field(default_factory=lambda: dict(SAMPLE))
    """planshape settings (``database``, ``mode``, ``schedule``, ``tools``, ...), as in every trainer's config."""
    task: TravelPlannerTaskConfig = TravelPlannerTaskConfig()
    tools: TravelPlannerToolsConfig = TravelPlannerToolsConfig()

    @field_validator("queries")
    @classmethod
    def _absolute_queries(cls, value: list[str]) -> list[str]:
        return [absolute(path) for path in value]

    @field_validator("planshape")
    @classmethod
    def _absolute_paths(cls, value: dict[str, Any]) -> dict[str, Any]:
        return {k: absolute(v) if k in PATH_SETTINGS and isinstance(v, str) else v for k, v in value.items()}


PATH_SETTINGS = ("database", "log_dir")


def absolute(path: str) -> str:
    """A relative path made absolute against the directory the config was read in (where ``vf-eval`` ran):
    verifiers starts the toolset's MCP server and its workers in directories of their own. ``sample`` (the bundled
    sample world) stays as it is."""
    return path if path == "sample" or os.path.isabs(path) else os.path.abspath(os.path.expanduser(path))


class TravelPlannerTaskset(vf.Taskset[TravelPlannerTask, TravelPlannerConfig]):
    @classmethod
    def toolsets(cls, config: TravelPlannerConfig) -> list[vf.Toolset]:
        return [TravelPlannerToolset(config.tools.model_copy(update={"planshape": config.planshape}))]

    def load(self) -> list[TravelPlannerTask]:
        config = self.config
        shaper = shared_shaper(config.planshape)
        task_config = config.task.model_copy(update={"planshape": config.planshape})
        records = episode_records(shaper, config.queries, config.split, config.val_size, config.seed)
        return [self._task(shaper, i, record, task_config) for i, record in enumerate(records)]

    @staticmethod
    def _task(shaper: Shaper, i: int, record: dict[str, Any], config: TravelPlannerTaskConfig) -> TravelPlannerTask:
        system, user = shaper.messages(record)
        return TravelPlannerTask(TravelPlannerData(
            idx=i, id=_durable_id(record, i), name=f"{record.get('level', '')}-{record.get('days', '')}d",
            prompt=user["content"], system_prompt=system["content"], query=query_json(record)), config)


def toolbox_answer(shaper: Shaper, name: str, arguments: str) -> str | None:
    """The toolbox's answer to a call the MCP toolset would not hand it (a form the toolbox refuses, or a value
    that is not text, which the tools' ``str`` parameters refuse); None for a call the toolset runs."""
    box = shaper.tools()
    refused = box.form_error(name, arguments)
    if refused is not None:
        return refused
    values = json.loads(arguments).values() if arguments.strip() else ()  # a JSON object: form_error read it
    return None if all(isinstance(v, str) for v in values) else box.call(name, arguments)


def _durable_id(record: dict[str, Any], i: int) -> str:
    return str(record.get("idx", i)) if not isinstance(record.get("idx"), (dict, list)) else str(i)


class TravelPlannerEnvConfig(vf.SingleAgentEnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime=vf.SubprocessConfig(),
                                           max_turns=MAX_TURNS)
    """The one seat: verifiers' tool-calling chat harness, local, capped at Planner-R1's 30 turns."""


class TravelPlannerEnv(vf.SingleAgentEnv, vf.Env[TravelPlannerEnvConfig]):
    """The single-agent env with TravelPlanner's defaults (``--env.agent.*`` overrides them)."""


__all__ = ["TravelPlannerEnv", "TravelPlannerTaskset"]
