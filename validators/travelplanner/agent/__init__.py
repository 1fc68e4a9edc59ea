"""The agent side of Planner-R1: the seven tools over a sandbox (``tools``, with its own ``calculator``),
tool calls written as text (``tool_calls``), the versioned training prompt (``prompt``), a framework-agnostic
episode (``episode``), and the tools as an MCP server (``mcp_server``)."""
