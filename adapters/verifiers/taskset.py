"""TravelPlanner as a verifiers taskset and env: the queries, the training prompt, the facade's reward.

* Dataset: ``queries`` (TravelPlanner files, or ``sample``), all of them or one half of Planner-R1's seeded
  re-split (``split``, ``val_size``, ``seed``: ``episode_records``). Each task's data is its query (JSON, as the
  reward reads it) and the training prompt: the versioned system prompt and the query text.
* Rubric: one reward, ``planshape`` (weight 1), the facade's ``SampleScore.reward`` of the final reply at
  ``step``; every ``planshape/...`` metric the trainers log (core, components, failure categories, monitor) as
  the trace's metrics; the failure category and reason in ``trace.info["planshape"]``.
* Env: one agent on verifiers' ``null`` harness (a chat loop with the toolset's MCP tools and no code execution,
  so the local ``subprocess`` runtime is safe) capped at ``max_turns`` = 30 model turns, Planner-R1's
  ``max_assistant_turns``: the 30th reply is final, as in training and ``planshape rollout``.

No TravelPlanner logic here: prompt, tools, toolbox and reward are the facade's.
"""

from __future__ import annotations

from typing import Any, Literal

from .version import check_version

check_version()

import verifiers.v1 as vf  # noqa: E402
from planshape.shaping.facade import (  # noqa: E402
    MAX_TURNS,
    SampleScore,
    Shaper,
    episode_records,
    query_json,
    shared_shaper,
)
from pydantic import Field  # noqa: E402

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

    def planshape_score(self, trace: vf.Trace) -> SampleScore:
        """The facade's score of the trace's final reply, once per trace (the metric and the reward share it);
        its failure category and reason go to ``trace.info["planshape"]`` (written to traces.jsonl)."""
        scores: dict[str, SampleScore] = self.__dict__.setdefault("_scores", {})
        if trace.id not in scores:
            shaper = shared_shaper(self.config.planshape)
            score = scores[trace.id] = shaper.score(trace.last_reply, self.data.query, self.config.step)
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


def _durable_id(record: dict[str, Any], i: int) -> str:
    return str(record.get("idx", i)) if not isinstance(record.get("idx"), (dict, list)) else str(i)


class TravelPlannerEnvConfig(vf.SingleAgentEnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime=vf.SubprocessConfig(),
                                           max_turns=MAX_TURNS)
    """The one seat: verifiers' tool-calling chat harness, local, capped at Planner-R1's 30 turns."""


class TravelPlannerEnv(vf.SingleAgentEnv, vf.Env[TravelPlannerEnvConfig]):
    """The single-agent env with TravelPlanner's defaults (``--env.agent.*`` overrides them)."""


__all__ = ["TravelPlannerEnv", "TravelPlannerTaskset"]
