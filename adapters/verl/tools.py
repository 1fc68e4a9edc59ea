"""The seven Planner-R1 tools as VERL ``BaseTool``s, loaded by VERL's tool loader from ``examples/tools.yaml``.

Each class is a name over planshape's shared tool functions (``Shaper.tools()``): the sandbox opens once per
``AgentLoopWorker`` process and is shared by every trajectory, so the tools are stateless and ``create`` /
``release`` (which ``ToolAgentLoop`` calls around every single call) cost nothing. The schemas come from the
core (flat string parameters: VERL's schema model drops nested ones), so the YAML only names the classes and
the planshape settings (``config.planshape``: a ``ShapingConfig`` mapping or a config file path).
Nothing a model sends raises: bad arguments come back as an ``Error: ...`` text the model can act on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar
from uuid import uuid4

from .version import check_version

check_version()  # one line naming the range outside it, before VERL's own imports can fail obscurely

from verl.tools.base_tool import BaseTool  # noqa: E402
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse  # noqa: E402

from .config import block_mapping, run_shaper  # noqa: E402

CONFIG_KEY = "planshape"


class PlanshapeTool(BaseTool):
    """One TravelPlanner tool; subclasses set ``tool_name``."""

    tool_name: ClassVar[str] = ""

    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema | None = None):
        if not isinstance(config, Mapping) or CONFIG_KEY not in config:
            raise ValueError(f"{type(self).__name__}: the tool config needs '{CONFIG_KEY}' (a planshape config "
                             "mapping or file path, e.g. {type: native, planshape: {database: /path/to/database}})")
        # Tools read the scoring side of the block only (database, tools.max_chars): naming the database is enough.
        self._shaper = run_shaper(block_mapping(config[CONFIG_KEY]))
        schema = next(s for s in self._shaper.tool_schemas if s["function"]["name"] == self.tool_name)
        super().__init__(config, tool_schema or OpenAIFunctionToolSchema.model_validate(schema))
        if self.name != self.tool_name:
            raise ValueError(f"{type(self).__name__} is the '{self.tool_name}' tool; its schema names '{self.name}'")

    def get_openai_tool_schema(self) -> OpenAIFunctionToolSchema:
        return self.tool_schema

    # The keyword arguments are exactly those ToolAgentLoop._call_tool passes in VERL 0.9.1.

    async def create(self, instance_id: str | None = None, create_kwargs: dict | None = None
                     ) -> tuple[str, ToolResponse]:
        # Stateless tools: VERL's per-call create/release only needs an id back.
        return instance_id or uuid4().hex, ToolResponse()

    async def execute(self, instance_id: str, parameters: Any, agent_data: Any = None
                      ) -> tuple[ToolResponse, float, dict]:
        text = self._shaper.tools().call(self.tool_name, parameters)
        return ToolResponse(text=text), 0.0, {"error": float(text.startswith("Error:"))}

    async def release(self, instance_id: str) -> None:
        return None


def _tool(class_name: str, tool_name: str) -> type[PlanshapeTool]:
    """One tool's class, under the name the tool YAML gives VERL's loader (``class_name``)."""
    return type(class_name, (PlanshapeTool,), {"tool_name": tool_name, "__module__": __name__,
                                                "__qualname__": class_name})


SearchFlights = _tool("SearchFlights", "search_flights")
SearchAccommodations = _tool("SearchAccommodations", "search_accommodations")
SearchRestaurants = _tool("SearchRestaurants", "search_restaurants")
SearchAttractions = _tool("SearchAttractions", "search_attractions")
SearchGroundTransportation = _tool("SearchGroundTransportation", "search_ground_transportation")
GetCities = _tool("GetCities", "get_cities")
Calculator = _tool("Calculator", "calculator")

TOOL_CLASSES: tuple[type[PlanshapeTool], ...] = (
    SearchFlights, SearchAccommodations, SearchRestaurants, SearchAttractions, SearchGroundTransportation,
    GetCities, Calculator,
)
