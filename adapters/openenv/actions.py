"""What a client sends and gets back: MCP tool calls (OpenEnv's own ``CallToolAction`` / ``ListToolsAction``), the
final answer (``AnswerAction``), and observations carrying the reward with its named components.

OpenEnv's server validates every step payload against one action class; ``TravelPlannerAction`` is that class,
choosing the action by its ``type`` (``call_tool``, ``list_tools``, ``answer``), so MCP clients and answer
actions share one session.
"""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

MCP_ACTIONS: dict[str, Any] = {  # name -> its Action model class
    "call_tool": CallToolAction, "list_tools": ListToolsAction}


class AnswerAction(Action):
    """The model's final reply (its last ``<answer>`` block is the plan): ends the episode with its score."""

    type: Literal["answer"] = Field(default="answer", description="Action type discriminator")
    text: str = Field(description="The final reply, as the model wrote it")


class TravelPlannerAction(Action):
    """The server's action type: validation picks ``CallToolAction``, ``ListToolsAction`` or ``AnswerAction``."""

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Action:  # type: ignore[override]
        kind = obj.get("type") if isinstance(obj, dict) else None
        return MCP_ACTIONS.get(str(kind), AnswerAction).model_validate(obj, *args, **kwargs)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {"title": cls.__name__, "oneOf": [a.model_json_schema(*args, **kwargs)
                                                 for a in (*MCP_ACTIONS.values(), AnswerAction)]}


class TravelPlannerObservation(Observation):
    """After ``reset``: the training prompt. After the answer (or the turn cap): ``done``, ``reward`` and, in
    ``metadata["planshape-travelplanner"]`` (the environment's name), the components, the failure category and
    reason, and every ``planshape/...`` metric the trainers log."""

    messages: list[dict[str, str]] = Field(default_factory=list, description="The prompt: system, then user")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="OpenAI-style schemas of the tools")


class TravelPlannerState(State):
    turns: int = Field(default=0, description="Assistant turns so far (tool calls and the answer)")
    tool_calls: int = Field(default=0, description="Tool calls run")
    done: bool = Field(default=False, description="Whether the episode has its score")
    query: str = Field(default="", description="The query text of the episode")
