"""TravelPlanner as an OpenEnv ``MCPEnvironment``: reset to a query, the seven tools over MCP, the final answer.

* ``reset(query=... | index=... | seed=...)``: the episode's query (a record or its JSON, a position in the
  server's queries, or a seeded pick); the observation holds the training prompt and the tool schemas.
* ``CallToolAction`` (and MCP clients of ``/mcp``): one tool call, one assistant turn, answered by the toolbox
  (``Error: ...`` text for what a model gets wrong: an unknown tool or bad argument names too, which a FastMCP
  middleware hands to the episode before FastMCP's own lookup and validation, so they count as turns and read as
  they do in every other standard). At the turn cap the episode ends unanswered (``done``).
* ``AnswerAction(text)``: the final reply, scored by the facade; ``reward`` and
  ``metadata["planshape-travelplanner"]`` (the components, the failure category and reason, every
  ``planshape/...`` metric) in the observation.

The reward is computed server-side by a ``Rubric`` (OpenEnv RFC 004) whose children are the named components
(``named_rubrics()`` gives each one's ``last_score``). A translation of the facade's ``Episode``: prompt, tools
and reward are the facade's. Sessions share one read-only store; each has its own episode.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import Any

from .version import check_version

check_version()

from fastmcp import FastMCP  # noqa: E402
from fastmcp.server.middleware import Middleware  # noqa: E402
from fastmcp.tools.base import ToolResult  # noqa: E402
from openenv.core.env_server.mcp_environment import MCPEnvironment  # noqa: E402
from openenv.core.env_server.types import Action, Observation  # noqa: E402
from openenv.core.rubrics import Rubric  # noqa: E402
from planshape.shaping.facade import MAX_TURNS, Episode, SampleScore, Shaper, tool_function  # noqa: E402

from .actions import AnswerAction, TravelPlannerObservation, TravelPlannerState  # noqa: E402

NAME = "planshape-travelplanner"


@dataclass(frozen=True)
class Tasks:
    """What every session of one server shares: the facade, its queries (one split), the step the reward's stage
    weights are read at, and the turn cap."""

    shaper: Shaper
    records: list[dict[str, Any]]
    split: str = "all"
    step: int = 0
    max_turns: int = MAX_TURNS


def score_view(score: SampleScore) -> dict[str, Any]:
    """A score as the observation carries it."""
    return {"reward": score.reward, "success": score.success, "failure": score.failure, "reason": score.reason,
            "stage": score.stage, "components": dict(score.components), "metrics": score.metrics()}


class _Component(Rubric):
    """One named component of the reward, read from the parent's score."""

    def __init__(self, parent: PlanshapeRubric, key: str):
        super().__init__()
        object.__setattr__(self, "parent", parent)  # not a child rubric: a back reference
        self.key = key

    def forward(self, action: Any, observation: Any) -> float:
        return float(self.parent.score.components.get(self.key, 0.0)) if self.parent.score else 0.0


class PlanshapeRubric(Rubric):
    """The facade's reward of the answer; each component a child rubric (``named_rubrics()``)."""

    def __init__(self, environment: TravelPlannerEnvironment):
        super().__init__()
        object.__setattr__(self, "environment", environment)
        object.__setattr__(self, "score", None)
        for key in environment.tasks.shaper.unscored(0).components:  # the facade's component names
            setattr(self, key, _Component(self, key))

    def forward(self, action: Any, observation: Any) -> float:
        episode = self.environment.episode
        text = action.text if isinstance(action, AnswerAction) else None
        score = episode.score or episode.finish(text, self.environment.tasks.step)
        object.__setattr__(self, "score", score)
        for child in self._rubric_children.values():
            child(action, observation)
        return score.reward


class EpisodeCalls(Middleware):
    """Every ``tools/call`` answered by the episode (``Episode.call``), before FastMCP looks the tool up or
    validates its arguments: one answer, one turn, for any call a model makes."""

    def __init__(self, call: Any):
        self.call = call

    async def on_call_tool(self, context: Any, call_next: Any) -> ToolResult:
        message = context.message
        text = self.call(message.name, message.arguments)
        return ToolResult(content=text, structured_content={"result": text})  # as FastMCP's own str tools answer


class TravelPlannerEnvironment(MCPEnvironment):
    SUPPORTS_CONCURRENT_SESSIONS = True  # the store is read-only and shared; the episode is per session

    def __init__(self, tasks: Tasks):
        mcp = FastMCP(NAME)
        for schema in tasks.shaper.tool_schemas:
            spec = schema["function"]
            mcp.tool(tool_function(schema, self._call), name=spec["name"], description=spec["description"])
        mcp.add_middleware(EpisodeCalls(self._call))
        super().__init__(mcp)
        self.tasks = tasks
        self.episode = Episode(tasks.shaper, max_turns=tasks.max_turns)
        self.rubric = PlanshapeRubric(self)
        self._episode_id = ""
        self._next = 0

    # --- OpenEnv's API --------------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, episode_id: str | None = None, query: Any = None,
              index: int | None = None, split: str | None = None, **kwargs: Any) -> TravelPlannerObservation:
        """A new episode on ``query``, else the server's ``index``-th query, else a ``seed``ed pick, else the
        next query in order. A bad choice (unknown split, index out of range, unreadable query) raises."""
        if split is not None and split != self.tasks.split:
            raise ValueError(f"this server serves the {self.tasks.split!r} split, not {split!r}")
        if query is None:
            records = self.tasks.records
            if index is None:
                index = random.Random(seed).randrange(len(records)) if seed is not None else self._next % len(records)
            if not 0 <= index < len(records):
                raise IndexError(f"index {index} is outside 0..{len(records) - 1}")
            self._next = index + 1
            query = records[index]
        messages = self.episode.reset(query)
        self.rubric.score = None
        self._episode_id = episode_id or uuid.uuid4().hex
        return TravelPlannerObservation(messages=messages, tools=self.tasks.shaper.tool_schemas)

    def _step_impl(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        """The final answer: the rubric scores it (the facade's reward), the episode ends."""
        if self.episode.record is None:
            return TravelPlannerObservation(metadata={"error": "reset the environment to a query first"})
        reward = self._apply_rubric(action, None)
        return TravelPlannerObservation(done=True, reward=reward, metadata={NAME: score_view(self._score())})

    async def _async_handle_call_tool(self, action: Any, timeout_s: float | None = None) -> Observation:
        observation = await super()._async_handle_call_tool(action, timeout_s)
        if self.episode.done:  # the turn cap ended the episode on this call
            score = self._score()
            observation.done, observation.reward = True, score.reward
            observation.metadata = {NAME: score_view(score)}
        return observation

    def _score(self) -> Any:
        """The ended episode's score (the rubric or the turn cap set it)."""
        if self.episode.score is None:
            raise RuntimeError("the episode has no score yet: it has not ended")
        return self.episode.score

    @property
    def state(self) -> TravelPlannerState:
        record = self.episode.record or {}
        return TravelPlannerState(episode_id=self._episode_id, step_count=self.episode.turns,
                                  turns=self.episode.turns, tool_calls=self.episode.tool_calls,
                                  done=self.episode.done, query=str(record.get("query", "")))

    # --- OpenEnv's task API (``TaskProvider``) ---------------------------------------------------------------

    def list_splits(self) -> list[str]:
        return [self.tasks.split]

    def num_tasks(self, split: str) -> int:
        return len(self._split(split))

    def get_task(self, split: str, index: int) -> dict[str, Any]:
        records = self._split(split)
        if not 0 <= index < len(records):
            raise IndexError(f"index {index} is outside 0..{len(records) - 1}")
        return self._task(index, records[index])

    def list_tasks(self, split: str) -> list[dict[str, Any]]:
        return [self._task(i, r) for i, r in enumerate(self._split(split))]

    def get_task_range(self, split: str, start: int | None = None, stop: int | None = None) -> list[dict[str, Any]]:
        return self.list_tasks(split)[start:stop]

    def _split(self, split: str) -> list[dict[str, Any]]:
        if split != self.tasks.split:
            raise ValueError(f"unknown split {split!r}; this server serves {self.tasks.split!r}")
        return self.tasks.records

    @staticmethod
    def _task(index: int, record: dict[str, Any]) -> dict[str, Any]:
        return {"index": index, "query": record.get("query"), "level": record.get("level"),
                "days": record.get("days")}

    # --- the tools --------------------------------------------------------------------------------------------

    def _call(self, name: Any, arguments: Any) -> str:
        if self.episode.record is None:
            return "Error: reset the environment to a query first"
        return self.episode.call(name, arguments, self.tasks.step)
