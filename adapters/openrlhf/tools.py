"""The TravelPlanner tool environment as an OpenRLHF agent, for ``--train.agent_func_path FILE.py``.

Each assistant turn is read for ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks (the Hermes /
Qwen format); each call runs on the sandbox's tools and the responses go back as the environment's feedback,
wrapped in the chat template's tool turn. A turn without a tool call, or the ``max_turns``-th turn, ends the
episode and is scored: OpenRLHF has no turn cap of its own. Only the last step's reward, scores and extra logs
survive OpenRLHF's executor, so every step returns the same log keys and the last one carries the verdict.
The tools and the scoring run in threads: a blocking step would stall the whole vLLM engine.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from planshape.shaping.facade import NO_ANSWER, SampleScore, Shaper, metric_name

from .config import rollout_shaper, shaper_for
from .reward import ROLLOUT_STEP
from .version import check_version

check_version()

from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor  # noqa: E402 - after the version check

TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
CHATML_TOOL_TURN = "\n<|im_start|>user\n{responses}<|im_end|>\n<|im_start|>assistant\n"
"""The feedback after an assistant turn that ended in its end-of-turn token (Qwen's ChatML tool turn)."""
TOOL_RESPONSE = "<tool_response>\n{content}\n</tool_response>"
TURNS, TOOL_CALLS = metric_name("num_turns"), metric_name("num_tool_calls")


@dataclass(frozen=True)
class AgentSettings:
    """What the thin agent file chooses: the planshape config and the episode's limits and template."""

    config: str
    max_turns: int = 30
    max_calls_per_turn: int = 8
    feedback_template: str = CHATML_TOOL_TURN

    def __post_init__(self) -> None:
        if self.max_turns < 1 or self.max_calls_per_turn < 1:
            raise ValueError(f"max_turns and max_calls_per_turn must be >= 1, got {self.max_turns}, "
                             f"{self.max_calls_per_turn}")
        if "{responses}" not in self.feedback_template:
            raise ValueError("feedback_template must contain '{responses}' where the tool responses go")


def parse_tool_calls(text: str, limit: int) -> list[tuple[Any, Any]]:
    """The ``(name, arguments)`` of each tool-call block, at most ``limit``; a block that is not a JSON object
    with a ``name`` becomes a call the tools answer with an error, so the model learns the format."""
    calls: list[tuple[Any, Any]] = []
    for block in TOOL_CALL.findall(text)[:limit]:
        try:
            call = json.loads(block)
        except (ValueError, RecursionError):  # model text: a malformed or absurdly nested call is answered
            call = None
        if isinstance(call, dict) and "name" in call:
            calls.append((call["name"], call.get("arguments")))
        else:
            calls.append(("", block))
    return calls


class TravelPlannerAgent(AgentInstanceBase):
    """One trajectory's environment (OpenRLHF makes a fresh instance per sample); ``settings`` is bound by
    ``agent_executor``."""

    settings: ClassVar[AgentSettings]

    def __init__(self) -> None:
        self.shaper: Shaper = shaper_for(self.settings.config)
        self.turns = 0
        self.tool_calls = 0

    def _logs(self, scored: SampleScore) -> dict[str, float]:
        logs = {name: float(value) for name, value in scored.metrics().items()}
        logs[TURNS], logs[TOOL_CALLS] = float(self.turns), float(self.tool_calls)
        return logs

    async def step(self, state_dict: dict[str, Any]) -> dict[str, Any]:
        """One assistant turn: run its tool calls, or score it as the final answer."""
        self.turns += 1
        text, label = str(state_dict.get("action_text") or ""), state_dict.get("label")
        calls = parse_tool_calls(text, self.settings.max_calls_per_turn)
        if calls and self.turns < self.settings.max_turns:
            tools = self.shaper.tools()
            responses = [await asyncio.to_thread(tools.call, name, arguments) for name, arguments in calls]
            self.tool_calls += len(calls)
            feedback = self.settings.feedback_template.format(
                responses="\n".join(TOOL_RESPONSE.format(content=r) for r in responses))
            # Should the budget end the episode after this turn, the logs say what it is: no answer.
            cut = self.shaper.unscored(ROLLOUT_STEP, NO_ANSWER, "the episode ended before a final answer")
            return {"rewards": torch.tensor(0.0), "environment_feedback": feedback, "done": False,
                    "extra_logs": self._logs(cut)}
        try:
            # a missing label fails in score (a ValueError), caught below
            scored = await asyncio.to_thread(self.shaper.score, text, label, ROLLOUT_STEP)  # type: ignore[arg-type]
        except Exception as exc:  # noqa: BLE001 - a bad label must not end the rollout actor
            scored = self.shaper.unscored(ROLLOUT_STEP, reason=f"{type(exc).__name__}: {exc}"[:300])
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
