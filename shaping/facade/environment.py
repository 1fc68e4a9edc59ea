"""TravelPlanner as an environment: the agent-side job every environment standard asks of the facade.

verifiers, OpenEnv and TRL's ``environment_factory`` each step an episode their own way, but the episode is the
same: reset to a query (the training prompt), tool calls answered by the toolbox, one final answer scored by the
facade. ``Episode`` is that episode, so each integration only translates its protocol onto it and holds no
TravelPlanner logic; ``episode_records`` is the dataset side (query files, and Planner-R1's 180/45 re-split).

The turn cap is the training loop's (``planshape rollout``, Planner-R1's ``max_assistant_turns``): every action
is one assistant turn, and the ``max_turns``-th turn is final, so a tool call there is not run and the episode
ends without an answer. Nothing a model sends raises here: bad calls come back as the toolbox's ``Error: ...``
text, a missing answer is the ``no_answer`` score with its reason.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from planshape.validators.travelplanner.agent.tools import ToolBox

from ..components import NO_ANSWER
from ..config import as_mapping
from ..reward import as_query, read_query
from .queries import read_all_queries, split_queries

if TYPE_CHECKING:
    from ..scores import SampleScore
    from .shaper import Shaper

MAX_TURNS = 30  # Planner-R1's max_assistant_turns, the default of `planshape rollout --max-turns`
SPLITS = ("all", "train", "validation")


class Episode:
    """One episode over one shared toolbox: ``reset(query)``, ``call(name, arguments)``, ``finish(text)``.

    An instance is reusable (``reset`` starts the next episode), as TRL's pooled environments are; it is not
    thread-safe, one episode at a time, as every standard runs it.
    """

    def __init__(self, shaper: Shaper, tools: ToolBox | None = None, max_turns: int | None = MAX_TURNS):
        if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be a whole number >= 1 (assistant turns per episode) or None (the "
                             f"caller's loop caps the turns), got {max_turns!r}")
        self.shaper = shaper
        self.max_turns = max_turns
        self._tools = tools
        self.record: dict[str, Any] | None = None
        self.turns = 0
        self.tool_calls = 0
        self.answer: str | None = None
        self.score: SampleScore | None = None

    @property
    def tools(self) -> ToolBox:
        """The facade's toolbox (opened on first use, one store per process)."""
        if self._tools is None:
            self._tools = self.shaper.tools()
        return self._tools

    @property
    def done(self) -> bool:
        return self.score is not None

    def reset(self, query: Mapping[str, Any] | str) -> list[dict[str, str]]:
        """Start an episode on ``query`` (a TravelPlanner record or its JSON text, as a dataset row holds it);
        returns its prompt messages. A query the reward cannot read raises ``ValueError`` (a dataset error)."""
        record = as_query(query)
        read_query(record)  # the reward's own reading: a bad row fails here, not at scoring
        self.record = dict(record)
        self.turns = self.tool_calls = 0
        self.answer = None
        self.score = None
        return self.messages()

    def messages(self, include_tools: bool = False) -> list[dict[str, str]]:
        """The training prompt of this episode's query (``include_tools``: the tools listed in the text)."""
        return self.shaper.messages(self._started(), include_tools)

    def call(self, name: Any, arguments: Any = None) -> str:
        """One tool call as one assistant turn: the toolbox's answer, or an ``Error: ...`` line (never raises).
        At the turn cap (or after the episode ended) the call is not run, and the episode ends unanswered."""
        self._started()
        if self.done:
            return "Error: the episode is over; no more tool calls are run"
        self.turns += 1
        if self.max_turns is not None and self.turns >= self.max_turns:
            self.end(f"the turn cap ({self.max_turns} assistant turns) was reached before a final answer")
            return f"Error: the turn cap ({self.max_turns} assistant turns) is reached; this call was not run"
        self.tool_calls += 1
        return self.tools.call(name, arguments)

    def finish(self, text: Any, step: int = 0) -> SampleScore:
        """The final answer (the reply text; its last answer block counts): the facade's score of it at
        ``step``. Finishing twice returns the first score."""
        record = self._started()
        if self.score is None:
            self.turns += 1
            self.answer = text if isinstance(text, str) else None
            self.score = self.shaper.score(self.answer or "", record, step)
        return self.score

    def end(self, reason: str, step: int = 0) -> SampleScore:
        """End the episode without an answer (cut short, or the model stopped): the ``no_answer`` score."""
        record = self._started()
        if self.score is None:
            self.score = self.shaper.unscored(step, NO_ANSWER, reason, record)
        return self.score

    def _started(self) -> dict[str, Any]:
        if self.record is None:
            raise RuntimeError("reset(query) starts an episode; this one has not been reset")
        return self.record


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
    An environment evaluates episodes, so ``total_steps`` defaults to 1, as for ``planshape rollout``."""
    from .shaper import Shaper

    mapping = as_mapping(settings)
    if not isinstance(mapping, Mapping):
        raise ValueError(f"planshape settings must be a mapping, got {type(mapping).__name__}")
    return Shaper.shared({"total_steps": 1, **mapping}, run_source="the environment")


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
