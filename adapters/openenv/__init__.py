"""TravelPlanner as an OpenEnv environment server (OpenEnv 0.10, ``openenv``), for TRL, SkyRL, ART, Unsloth and
every other OpenEnv client.

    python -m planshape.adapters.openenv.server --database path/to/database --queries train.csv

``environment.py`` is the environment (reset to a query, the seven tools over MCP, the final answer scored by the
facade: reward and named components in the observation), ``actions.py`` its action and observation types,
``server.py`` the app OpenEnv's ``create_app`` serves (HTTP, WebSocket and ``/mcp``). A translation of the
facade's ``Episode``; nothing here is imported by the core: ``version.py`` checks the OpenEnv release first.
"""
