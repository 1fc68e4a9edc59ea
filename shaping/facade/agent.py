"""The agent side of a run: the versioned Planner-R1 prompt, the seven tools over the run's sandbox, their
schemas, and tool calls written as text, so that every trainer's tool loop and every environment standard
translates the same objects."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from planshape.validators.travelplanner.agent import prompt
from planshape.validators.travelplanner.agent.tool_calls import (
    MAX_TEXT_CALLS,
    TextCall,
    parse_tool_calls,
    tool_responses,
)
from planshape.validators.travelplanner.agent.tools import TOOL_SCHEMAS, ToolBox

if TYPE_CHECKING:
    from planshape.validators.travelplanner.store.sandbox import SandboxStore

__all__ = ["MAX_TEXT_CALLS", "AgentSide", "TextCall", "parse_tool_calls", "response_text", "tool_responses"]


def response_text(query: str, prompt: Any) -> str:
    """The model's part of a prompt + response text as a trainer decoded it (OpenRLHF's ``query``): decoding need
    not give the prompt back byte for byte, so the whole text is scored when the prompt is not a prefix of it."""
    return query[len(prompt):] if isinstance(prompt, str) and query.startswith(prompt) else query


class AgentSide:
    """What an agent loop needs: the prompt, the tools over the run's store (``store()`` opens it, once per
    process, shared with scoring) and their schemas; ``max_chars`` cuts each tool response."""

    prompt_version = prompt.PROMPT_VERSION

    def __init__(self, store: Callable[[], SandboxStore], max_chars: int):
        self._store = store
        self.max_chars = max_chars

    def messages(self, record: Mapping[str, Any], include_tools: bool = False) -> list[dict[str, str]]:
        """The chat prompt of one query: the versioned Planner-R1 system prompt and the query text."""
        return prompt.messages(record, include_tools)

    def tools(self) -> ToolBox:
        """The seven agent tools over the sandbox."""
        return ToolBox(self._store(), max_chars=self.max_chars)

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI-style function schemas of the seven tools."""
        return list(TOOL_SCHEMAS.values())
