"""The seven TravelPlanner tools as a verifiers ``Toolset``: an MCP server verifiers starts once per worker and
installs into the agent's harness, every call answered by the facade's ``ToolBox.call``.

Names, descriptions and parameters are the facade's ``tool_schemas`` (advertised bare, as training names them,
not ``<server>_``-prefixed); what a model sends wrong (unknown city, bad date, over-long text) comes back as the
toolbox's ``Error: ...`` text. Run as ``python -m planshape.adapters.verifiers.toolset``, which is how verifiers
launches it (the settings arrive in ``VF_CONFIG``).
"""

from __future__ import annotations

from typing import Any

from .version import check_version

check_version()

import verifiers.v1 as vf  # noqa: E402
from planshape.shaping.facade import shared_shaper, tool_function  # noqa: E402
from pydantic import Field  # noqa: E402


class TravelPlannerToolsConfig(vf.SharedToolsetConfig):
    planshape: dict[str, Any] = Field(default_factory=lambda: {"database": "sample"})
    """The planshape settings the tools run on (the database; ``tools.max_chars``)."""


class TravelPlannerToolset(vf.Toolset[TravelPlannerToolsConfig]):
    TOOL_PREFIX = None  # bare names: search_flights, not travel_planner_toolset_search_flights

    async def setup(self) -> None:
        self.shaper = shared_shaper(self.config.planshape)
        self.toolbox = self.shaper.tools()

    def register(self, mcp: Any) -> None:
        for schema in self.shaper.tool_schemas:
            spec = schema["function"]
            mcp.add_tool(tool_function(schema, self.toolbox.call), name=spec["name"], description=spec["description"])


if __name__ == "__main__":
    TravelPlannerToolset.run()
