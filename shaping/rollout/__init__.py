"""Evaluate a served model on TravelPlanner: the Planner-R1 agent loop over an OpenAI-compatible endpoint
(``planshape rollout``), with the same prompt, tool schemas, toolbox and scoring as training (docs/rollout.md).
Needs the ``serve`` extra (``aiohttp``; ``mcp`` and ``uvicorn`` for ``planshape mcp``)."""
