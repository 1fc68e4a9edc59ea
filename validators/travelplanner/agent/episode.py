"""A framework-agnostic TravelPlanner episode: a scripted policy calls tools, then answers; the runner
returns the transcript, the number of assistant turns and the reward. For tests and demos; it steps the one agent
loop (``loop.Turns``) that every trainer's and standard's episode steps.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..plan.answer import wrap_answer
from .loop import MAX_TURNS, Call, Turns
from .tools import ToolBox

Action = Mapping[str, Any]  # {"tool": name, "arguments": {...}} or {"answer": text or plan}
Policy = Sequence[Action] | Callable[[list[dict[str, Any]]], Action]


class Scores(Protocol):
    def score(self, text: Any, query: Any, step: int = 0) -> Any: ...


@dataclass
class Episode:
    transcript: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    tool_calls: int = 0
    answer: str | None = None
    reward: Any = None


def _answer_text(answer: Any) -> str:
    return wrap_answer(answer if isinstance(answer, str) else json.dumps(answer))


def run_episode(policy: Policy, query: Any, tools: ToolBox, scorer: Scores | None = None, step: int = 0,
                max_turns: int = MAX_TURNS) -> Episode:
    """Play ``policy`` (a list of actions, or a function of the transcript returning the next action).

    Every action is one assistant turn; a tool action adds the tool's response to the transcript. The
    episode ends at an answer, when the policy has no more actions, or at the ``max_turns``-th turn (a tool
    action there is not run: the episode has no answer and scores 0).
    """
    episode = Episode()
    turns = Turns(tools, max_turns)
    script = None if callable(policy) else iter(policy)
    while not turns.ended:
        action = next(script, None) if script is not None else policy(episode.transcript)  # type: ignore[operator]  # callable here
        if action is None:
            break
        if "answer" in action:
            if turns.answer():
                episode.answer = _answer_text(action["answer"])
                episode.transcript.append({"role": "assistant", "content": episode.answer})
            break
        name, arguments = action.get("tool"), action.get("arguments", {})
        answers = turns.turn([Call(name, arguments)])
        if answers is None:  # the cap's turn: the call is not run
            break
        episode.transcript.append({"role": "assistant", "tool_call": {"name": name, "arguments": arguments}})
        episode.transcript.append({"role": "tool", "name": name, "content": answers[0]})
    episode.turns, episode.tool_calls = turns.turns, turns.tool_calls
    if scorer is not None:
        final = episode.answer if episode.answer is not None else ""
        episode.reward = scorer.score(final, query, step)
    return episode
