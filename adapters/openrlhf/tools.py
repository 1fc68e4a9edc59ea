"""The TravelPlanner tool environment as an OpenRLHF agent, for ``--train.agent_func_path FILE.py``.

Each assistant turn is read for ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks (the Hermes /
Qwen format) by the core's parser (linear in the text, blocks size-capped) and stepped on the facade's one agent
loop (``Turns``): each call runs on the sandbox's tools, calls past ``max_calls_per_turn`` are answered with an
error, and the responses go back as the environment's feedback, wrapped in the chat template's tool turn. A turn
without a tool call, or the ``max_turns``-th turn, ends the episode and is scored: OpenRLHF has no turn cap of its
own. Only the last step's reward, scores and extra
logs survive OpenRLHF's executor, so every step returns the same log keys (``Shaper.carried``) and the last one
carries the verdict, which the trainer weighs again at its step (``advantages``). Parsing, the tools and the
scoring run in threads: a blocking step would stall the whole vLLM engine.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from planshape.shaping.facade import (
    MAX_CALLS_PER_TURN,
    MAX_TEXT_CALLS,
    MAX_TURNS,
    NO_ANSWER,
    SampleScore,
    Shaper,
    Turns,
    check_limits,
    parse_tool_calls,
    tool_responses,
)

from .config import rollout_shaper, run_shaper
from .reward import ROLLOUT_STEP, rewards
from .version import check_version

check_version()

from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor  # noqa: E402 - after the version check

CHATML_TOOL_TURN = "\n<|im_start|>user\n{responses}<|im_end|>\n<|im_start|>assistant\n"
"""The feedback after an assistant turn that ended in its end-of-turn token (Qwen's ChatML tool turn)."""


@dataclass(frozen=True)
class AgentSettings:
    """What the thin agent file chooses: the planshape config and the episode's limits and template."""

    config: str
    max_turns: int = MAX_TURNS
    max_calls_per_turn: int = MAX_CALLS_PER_TURN
    feedback_template: str = CHATML_TOOL_TURN

    def __post_init__(self) -> None:
        check_limits(self.max_turns, self.max_calls_per_turn)
        if "{responses}" not in self.feedback_template:
            raise ValueError("feedback_template must contain '{responses}' where the tool responses go")


class TravelPlannerAgent(AgentInstanceBase):
    """One trajectory's environment (OpenRLHF makes a fresh instance per sample); ``settings`` is bound by
    ``agent_executor``."""

    settings: ClassVar[AgentSettings]

    def __init__(self) -> None:
        self.shaper: Shaper = run_shaper(self.settings.config)
        self.loop = Turns(self.shaper.tools(), self.settings.max_turns, self.settings.max_calls_per_turn)

    @property
    def turns(self) -> int:
        return self.loop.turns

    def _tool_turn(self, text: str) -> str | None:
        """The feedback of a turn whose tool calls are answered; None when the turn ends the episode (it calls no
        tool, or it is the ``max_turns``-th)."""
        responses = self.loop.turn(parse_tool_calls(text, MAX_TEXT_CALLS))
        if responses is None:
            return None
        return self.settings.feedback_template.format(responses=tool_responses(responses))

    def _logs(self, scored: SampleScore) -> dict[str, float]:
        return self.shaper.carried(scored)

    async def step(self, state_dict: dict[str, Any]) -> dict[str, Any]:
        """One assistant turn: run its tool calls, or score it as the final answer."""
        text, label = str(state_dict.get("action_text") or ""), state_dict.get("label")
        if not self.loop.ended:
            feedback = await asyncio.to_thread(self._tool_turn, text)
            if feedback is not None:
                # Should the budget end the episode after this turn, the logs say what it is: no answer.
                cut = self.shaper.unscored(ROLLOUT_STEP, NO_ANSWER, "the episode ended before a final answer")
                return {"rewards": torch.tensor(0.0), "environment_feedback": feedback, "done": False,
                        "extra_logs": self._logs(cut)}
        (scored,) = await asyncio.to_thread(rewards, self.shaper, [text], [label], ROLLOUT_STEP)  # a bad label: error
        return {"rewards": torch.tensor(float(scored.reward)), "scores": torch.tensor(float(scored.success)),
                "environment_feedback": "", "done": True, "extra_logs": self._logs(scored)}


def agent_executor(settings: AgentSettings) -> type[MultiTurnAgentExecutor]:
    """The ``AgentExecutor`` class an agent file exposes: zero-argument, as OpenRLHF instantiates it. The
    config is validated here, when the rollout actor loads the file."""
    rollout_shaper(settings.config)
    instance_cls = type("TravelPlannerAgentInstance", (TravelPlannerAgent,), {"settings": settings})

    class AgentExecutor(MultiTurnAgentExecutor):
        def __init__(self) -> None:
            super().__init__(instance_cls)

    return AgentExecutor
