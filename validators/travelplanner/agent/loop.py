"""The one agent loop: an episode's assistant turns over one toolbox, with the limits of training, defined once.

Every way planshape meets an agent steps the same episode: ``planshape rollout`` (a served model), the OpenRLHF
agent, the environment standards (verifiers, OpenEnv, TRL's ``environment_factory``, NeMo Gym's resources
server) and the scripted ``run_episode``. Each translates its protocol onto ``Turns`` and holds no loop of its own:

* every assistant turn counts, whatever it holds (a bad call is a turn like any other, so a model stuck on an
  unknown tool is cut off like one that keeps searching);
* a turn's tool calls are answered in order by ``ToolBox.call``, at most ``max_calls`` of them; each call past that
  gets an ``Error: ...`` saying it was not run (the model learns the limit instead of losing calls silently);
* a turn without a tool call ends the episode: its text is the final answer;
* the ``max_turns``-th turn is final whatever it holds: its calls are not run and the episode ends; what that turn
  wrote is the answer (an episode stepped one call at a time, as OpenEnv and TRL do, wrote none).

The limits are Planner-R1's (``max_assistant_turns`` = 30), with ``MAX_CALLS_PER_TURN`` the cap a turn's calls
are answered up to (the paper's model makes a handful per turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .tools import ToolBox

MAX_TURNS = 30  # Planner-R1's max_assistant_turns
MAX_CALLS_PER_TURN = 8  # tool calls answered in one assistant turn; each one past it gets an error


def turn_cap_reason(max_turns: int) -> str:
    """Why an episode cut at the turn cap has no answer (the score's reason)."""
    return f"the turn cap ({max_turns} assistant turns) was reached before a final answer"


def check_limits(max_turns: Any, max_calls: Any) -> None:
    """A ``ValueError`` naming a limit that is not a whole number >= 1 (``max_turns`` None: the caller's own loop
    caps the turns)."""
    for name, value, optional in (("max_turns", max_turns, True), ("max_calls", max_calls, False)):
        if value is None and optional:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1{' or None' if optional else ''}, got {value!r}")


@dataclass(frozen=True)
class Call:
    """One tool call as a standard hands it over: a name and its arguments (a dict, or JSON text as the model
    wrote it). ``tool_calls.TextCall`` (a ``<tool_call>`` block) and the rollout's native calls have the same
    two fields, and a block that is no call also its ``error``."""

    name: Any
    arguments: Any = None


class Turns:
    """The assistant turns of one episode over ``tools`` (see the module docstring); ``reset`` starts another.

    Not thread-safe: one episode at a time, as every standard runs it.
    """

    def __init__(self, tools: ToolBox, max_turns: int | None = MAX_TURNS, max_calls: int = MAX_CALLS_PER_TURN):
        check_limits(max_turns, max_calls)
        self.tools = tools
        self.max_turns = max_turns
        self.max_calls = max_calls
        self.reset()

    def reset(self) -> None:
        self.turns = 0
        self.tool_calls = 0
        self.ended = False  # the episode is over: a turn answered, or the cap was reached
        self.capped = False  # it ended at the turn cap with calls left unrun

    @property
    def final(self) -> bool:
        """Whether the next turn is the last one (the cap's turn): its calls will not be run."""
        return self.max_turns is not None and self.turns + 1 >= self.max_turns

    def turn(self, calls: Sequence[Any]) -> list[str] | None:
        """One assistant turn and its tool calls (anything with ``name`` and ``arguments``, e.g. ``Call``): their
        answers in order, or None when this turn ends the episode (no call: its text is the answer; the cap's
        turn: the calls are not run). A turn after the end is refused the same way (None)."""
        if self.ended:
            return None
        last = self.final
        self.turns += 1
        if not calls or last:
            self.ended = True
            self.capped = bool(calls)
            return None
        self.tool_calls += min(len(calls), self.max_calls)
        return self.tools.call_turn(calls, self.max_calls)

    def call(self, name: Any, arguments: Any = None) -> str:
        """A turn of exactly one call (how OpenEnv and TRL step an episode): its answer, or an ``Error: ...`` when
        the call is not run (the cap's turn, or the episode is over)."""
        if self.ended:
            return self.tools.refuse("the episode is over; no more tool calls are run")
        answers = self.turn([Call(name, arguments)])
        if answers is None:
            return self.tools.refuse(f"the turn cap ({self.max_turns} assistant turns) is reached; this call was "
                                     "not run")
        return answers[0]

    def answer(self) -> bool:
        """The final answer's turn (a reply without a tool call): counted, and the episode ends. False when the
        episode had already ended (an answer after the cap does not count)."""
        if self.ended:
            return False
        self.turn([])
        return True
