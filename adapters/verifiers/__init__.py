"""TravelPlanner as a verifiers environment (verifiers 0.4, the ``verifiers.v1`` stack).

    vf-eval planshape-travelplanner --model MODEL --client.base-url http://127.0.0.1:8000/v1

``taskset.py`` holds the taskset (the queries, the training prompt, the facade's reward as the rubric, every
``planshape/...`` metric) and the env (one agent on verifiers' tool-calling ``null`` harness, the turn cap of
training); ``toolset.py`` the seven tools as an MCP toolset. Each is a translation of the facade. verifiers finds
the taskset by id through the installable package in ``environment/`` (``planshape_travelplanner``), as it finds
every environment. Nothing here is imported by the core: ``version.py`` checks the verifiers release first.
"""
