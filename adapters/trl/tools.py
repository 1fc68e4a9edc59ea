"""The seven TravelPlanner tools as the functions TRL's tool loop takes (``GRPOTrainer(tools=...)``).

TRL (through transformers' ``get_json_schema``) wants plain functions with type hints and a Google-style
docstring, and calls them with the model's parsed arguments. Each function here takes its name, description
and parameters from the facade's ``tool_schemas``, so the model sees exactly planshape's schema, and runs
through the facade's ``ToolBox.call``: bad or missing arguments come back as ``Error: ...`` text for the model
to act on, never as an exception. The toolbox (and its store) opens on the first call, once per process.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from planshape.shaping.facade import Shaper


class _LazyToolBox:
    """The facade's toolbox, opened on first use (building a trainer must not open the store)."""

    def __init__(self, shaper: Shaper):
        self.shaper = shaper
        self.toolbox: Any = None  # the facade's ToolBox, once opened (adapters import only the facade)

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.toolbox is None:
            self.toolbox = self.shaper.tools()
        toolbox = self.toolbox
        return toolbox.call(name, arguments)


def planner_tool(box: _LazyToolBox, schema: Mapping[str, Any]) -> Callable[..., str]:
    """One tool as a function whose signature and docstring say what ``schema`` says."""
    name = schema["function"]["name"]

    def tool(**arguments: Any) -> str:
        return box.call(name, arguments)

    return describe(tool, schema)


def describe(function: Callable[..., str], schema: Mapping[str, Any],
             *leading: inspect.Parameter) -> Callable[..., str]:
    """``function`` named, typed and documented as ``schema`` (transformers' ``get_json_schema`` reads them back);
    ``leading``: parameters before the tool's own (``self`` of a method)."""
    spec = schema["function"]
    properties = spec["parameters"]["properties"]
    function.__name__ = function.__qualname__ = spec["name"]
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*leading, *(inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=str) for p in properties)],
        return_annotation=str)
    function.__annotations__ = {**{p: str for p in properties}, "return": str}
    args = "\n".join(f"    {p}: {' '.join(item['description'].split())}" for p, item in properties.items())
    function.__doc__ = f"{spec['description']}\n\nArgs:\n{args}\n\nReturns:\n    The result as text."
    return function


def planner_tools(shaper: Shaper) -> list[Callable[..., str]]:
    """The seven tools, in the facade's order, sharing one toolbox: ``GRPOTrainer(tools=planner_tools(shaper))``."""
    box = _LazyToolBox(shaper)
    return [planner_tool(box, schema) for schema in shaper.tool_schemas]
