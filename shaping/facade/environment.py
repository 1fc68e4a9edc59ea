"""TravelPlanner as an environment: the agent-side job every environment standard asks of the facade.

verifiers, OpenEnv, TRL's ``environment_factory``, NeMo Gym (``planshape serve``), the OpenRLHF agent and
``planshape rollout`` each step an episode their own way, but the episode is the same: reset to a query (the
training prompt), assistant turns whose tool calls the toolbox answers, one final answer scored by the facade.
``Episode`` is that episode over the one agent loop (``validators/.../agent/loop.py``: every turn counts, bad
calls too; the ``max_turns``-th turn is final), so each integration only translates its protocol onto it and
holds no TravelPlanner logic; ``episode_records`` is the dataset side (query files, and Planner-R1's 180/45
re-split). Nothing a model sends raises here: bad calls come back as the toolbox's ``Error: ...`` text, a
missing answer is the ``no_answer`` score with its reason.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from planshape.validators.travelplanner.agent.loop import (
    MAX_CALLS_PER_TURN,
    MAX_TURNS,
    Call,
    Turns,
    check_limits,
    turn_cap_reason,
)
from planshape.validators.travelplanner.agent.tools import ToolBox

from ..components import NO_ANSWER
from ..config import as_mapping
from ..reward import as_query, read_query
from .queries import read_all_queries, split_queries

if TYPE_CHECKING:
    from ..scores import SampleScore
    from .shaper import Shaper

__all__ = ["MAX_CALLS_PER_TURN", "MAX_TURNS", "SPLITS", "Call", "Episode", "Turns", "check_limits", "episode_records",
           "shared_shaper", "tool_function", "turn_cap_reason"]

SPLITS = ("all", "train", "validation")


class Episode:
    """One episode over one shared toolbox: ``reset(query)``, then tool calls (``call`` one at a time, or
    ``turn`` with a whole assistant turn's calls), then ``finish(text)`` (the final answer) or ``end(reason)``.

    An instance is reusable (``reset`` starts the next episode), as TRL's pooled environments are; it is not
    thread-safe, one episode at a time, as every standard runs it.
    """

    def __init__(self, shaper: Shaper, tools: ToolBox | None = None, max_turns: int | None = MAX_TURNS,
                 max_calls: int = MAX_CALLS_PER_TURN):
        self.shaper = shaper
        self._loop = Turns(tools or _Lazy(shaper), max_turns, max_calls)  # type: ignore[arg-type]  # a ToolBox once used
        self.record: dict[str, Any] | None = None
        self.answer: str | None = None
        self.score: SampleScore | None = None

    @property
    def max_turns(self) -> int | None:
        return self._loop.max_turns

    @property
    def turns(self) -> int:
        """Assistant turns so far (tool calls, bad ones included, and the answer)."""
        return self._loop.turns

    @property
    def tool_calls(self) -> int:
        """Tool calls run (a call at the turn cap is not)."""
        return self._loop.tool_calls

    @property
    def tools(self) -> ToolBox:
        """The facade's toolbox (opened on first use, one store per process)."""
        tools = self._loop.tools
        return tools.box if isinstance(tools, _Lazy) else tools

    @property
    def done(self) -> bool:
        return self.score is not None

    def reset(self, query: Mapping[str, Any] | str) -> list[dict[str, str]]:
        """Start an episode on ``query`` (a TravelPlanner record or its JSON text, as a dataset row holds it);
        returns its prompt messages. A query the reward cannot read raises ``ValueError`` (a dataset error)."""
        record = as_query(query)
        read_query(record)  # the reward's own reading: a bad row fails here, not at scoring
        self.record = dict(record)
        self._loop.reset()
        self.answer = None
        self.score = None
        return self.messages()

    def messages(self, include_tools: bool = False) -> list[dict[str, str]]:
        """The training prompt of this episode's query (``include_tools``: the tools listed in the text)."""
        return self.shaper.messages(self._started(), include_tools)

    def call(self, name: Any, arguments: Any = None, step: int = 0) -> str:
        """One tool call as one assistant turn: the toolbox's answer, or an ``Error: ...`` line (never raises).
        At the turn cap (or after the episode ended) the call is not run, and the episode ends unanswered."""
        self._started()
        if self.done:
            return self.tools.refuse("the episode is over; no more tool calls are run")
        text = self._loop.call(name, arguments)
        if self._loop.ended:
            self.end(turn_cap_reason(self._loop.max_turns or 0), step)
        return text

    def turn(self, calls: Sequence[Any], text: Any = "", step: int = 0) -> list[str] | None:
        """One assistant turn: its tool calls' answers, or None when the turn ends the episode (it calls no tool,
        or it is the cap's turn), which is then scored with ``text`` (the turn's reply) as the final answer."""
        self._started()
        if self.done:
            return None
        answers = self._loop.turn(calls)
        if answers is None:
            self._score(text, step)
            if self._loop.capped and self.score is not None and self.score.failure == NO_ANSWER:
                self.score = self.shaper.unscored(step, NO_ANSWER, turn_cap_reason(self._loop.max_turns or 0),
                                                  self.record)
        return answers

    def finish(self, text: Any, step: int = 0) -> SampleScore:
        """The final answer (the reply text; its last answer block counts): the facade's score of it at
        ``step``. Finishing twice returns the first score."""
        self._started()
        if self.score is None:
            self._loop.answer()
            self._score(text, step)
        return self.score  # type: ignore[return-value]  # set by _score

    def end(self, reason: str, step: int = 0) -> SampleScore:
        """End the episode without an answer (cut short, or the model stopped): the ``no_answer`` score."""
        record = self._started()
        if self.score is None:
            self._loop.ended = True
            self.score = self.shaper.unscored(step, NO_ANSWER, reason, record)
        return self.score

    def _score(self, text: Any, step: int) -> None:
        self.answer = text if isinstance(text, str) else None
        self.score = self.shaper.score(self.answer or "", self._started(), step)

    def _started(self) -> dict[str, Any]:
        if self.record is None:
            raise RuntimeError("reset(query) starts an episode; this one has not been reset")
        return self.record


class _Lazy:
    """The facade's toolbox, opened on the first call (an environment built before its store is needed)."""

    def __init__(self, shaper: Shaper):
        self.shaper = shaper
        self._box: ToolBox | None = None

    @property
    def box(self) -> ToolBox:
        if self._box is None:
            self._box = self.shaper.tools()
        return self._box

    def call_turn(self, calls: Sequence[Any], max_calls: int) -> list[str]:
        return self.box.call_turn(calls, max_calls)

    def refuse(self, reason: str) -> str:
        return self.box.refuse(reason)


def episode_records(shaper: Shaper, paths: Sequence[str | Path], split: str = "all",
                    val_size: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """The queries of an environment: every record of ``paths`` (``"sample"``: the sample world's), or one half of
    Planner-R1's seeded re-split of them (``split`` "train" / "validation", ``split_queries``)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    records = read_all_queries(list(paths))
    if split == "all":
        return records
    options = {} if val_size is None else {"val_size": val_size}
    train, validation = split_queries(records, seed=seed, **options)
    return train if split == "train" else validation


def shared_shaper(settings: Mapping[str, Any] | str) -> Shaper:
    """The process's ``Shaper`` for an environment's planshape settings (a mapping, YAML/JSON text or file):
    ``Shaper.shared``, so an environment server's sessions, worker processes and tool servers share one store.
    An environment only scores episodes, so what estimating needs (``total_steps``) is not asked."""
    from .shaper import Shaper

    mapping = as_mapping(settings)
    if not isinstance(mapping, Mapping):
        raise ValueError(f"planshape settings must be a mapping, got {type(mapping).__name__}")
    return Shaper.shared(mapping, run_source="the environment")


def tool_function(schema: Mapping[str, Any], call: Callable[[str, dict[str, Any]], str]) -> Callable[..., str]:
    """A tool of ``Shaper.tool_schemas`` as a plain function for frameworks that read a tool's schema off its
    signature (MCP servers: verifiers' toolsets, FastMCP): named as the schema, each parameter a described
    ``str``; a call runs ``call(name, arguments)`` (an episode's or the toolbox's ``call``)."""
    from pydantic import Field

    spec = schema["function"]
    name = spec["name"]

    def tool(**arguments: Any) -> str:
        return call(name, arguments)

    hints = {p: Annotated[str, Field(description=item["description"])]
             for p, item in spec["parameters"]["properties"].items()}
    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = spec["description"]
    tool.__annotations__ = {**hints, "return": str}
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=hint) for p, hint in hints.items()],
        return_annotation=str)
    return tool
