"""The reward server as a Ray Serve deployment: the same ``Service`` in every replica, behind Ray's HTTP proxy.

Each replica asks for a custom resource (default ``{"planshape_cpu": 1}``), so Ray places scoring only on the
nodes started with it (``ray start --resources '{"planshape_cpu": 16}'`` on a CPU node group) and never on a
GPU node of the same VERL or OpenRLHF cluster. Ray does the placement, restarts and load balancing; planshape
adds no cluster code. Each replica builds its own ``Shaper`` from the config (opening the database once) and
scores in process (``workers`` 0, the default) or on its own pool of ``workers`` processes, started on its first
request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from planshape.validators.travelplanner.agent.loop import MAX_TURNS

from .auth import Guard
from .limits import Limits

APP_NAME = "planshape"


def _deployment_class() -> Any:
    from ray import serve
    from starlette.requests import Request
    from starlette.responses import Response

    @serve.deployment
    class PlanshapeReward:
        """One replica: a ``Service`` over this replica's ``Shaper``."""

        def __init__(self, config: Any, guard: Guard, limits: Limits, step: int, workers: int,
                     max_turns: int | None = MAX_TURNS) -> None:
            import asyncio
            import functools

            from .pool import AsyncPool, InlinePool
            from .routes import Service
            from .startup import serve_shaper, worker_settings
            from .worker import worker_factory

            shaper = serve_shaper(config, workers)
            inline = workers == 0
            budget_s = None if inline else shaper.config.sample_budget_s
            factory = functools.partial(worker_factory, worker_settings(shaper, inline), max_turns,
                                        limits.max_samples, budget_s)
            pool = InlinePool(factory) if inline else AsyncPool(factory, workers, budget_s)
            self.service = Service(shaper, pool, guard, limits, step)
            self._started: asyncio.Task | None = None

        async def __call__(self, request: Request) -> Response:
            from .codec import dumps
            from .routes import Call
            from .wire import BadRequest

            async def read_body(limit: int) -> bytes:
                chunks, size = [], 0
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limit:
                        raise BadRequest(f"the body is over {limit} bytes; this server takes at most {limit} "
                                         "(--max-body-mb)", 413)
                    chunks.append(chunk)
                return b"".join(chunks)

            import asyncio

            if self._started is None:  # the pool starts in the replica's own event loop, once
                self._started = asyncio.ensure_future(self.service.pool.start())
            await asyncio.shield(self._started)
            peer = request.client.host if request.client else None
            call = Call(request.method, request.url.path, dict(request.query_params), request.headers, peer,
                        read_body)
            reply = await self.service.handle(call)
            if isinstance(reply.body, bytes):
                return Response(reply.body, reply.status, media_type=reply.content_type, headers=reply.headers)
            return Response(dumps(reply.body), reply.status, media_type=reply.content_type,
                            headers=reply.headers)

        def placement(self) -> dict[str, Any]:
            """Where Ray put this replica and what it holds (a deployment handle's diagnostic)."""
            import ray

            return {"replica": serve.get_replica_context().replica_id.unique_id,
                    "node": ray.get_runtime_context().get_node_id(),
                    "resources": ray.get_runtime_context().get_assigned_resources()}

        def __del__(self) -> None:
            service = getattr(self, "service", None)
            if service is not None:
                service.close()

    return PlanshapeReward


def application(config: Any, guard: Guard, limits: Limits, step: int, replicas: int, resources: dict[str, float],
                workers: int = 0, max_turns: int | None = MAX_TURNS) -> Any:
    """The bound Ray Serve application: ``replicas`` replicas, each asking for ``resources`` and
    ``max(1, workers)`` CPUs."""
    options = {"num_cpus": max(1, workers), "resources": dict(resources)}
    return _deployment_class().options(num_replicas=replicas, ray_actor_options=options).bind(
        config, guard, limits, step, workers, max_turns)


def deploy(config: Any, guard: Guard, limits: Limits, step: int, replicas: int, resources: dict[str, float],
           host: str, port: int, ray_address: str | None = "auto", workers: int = 0, blocking: bool = False,
           ready: Callable[[], None] | None = None, max_turns: int | None = MAX_TURNS) -> None:
    """Join the Ray cluster at ``ray_address`` (None: the one this process already started, or a new local
    one), start Serve's HTTP proxy on ``host:port`` and run the application at ``/``; ``ready`` is called once its
    replicas run, and ``blocking`` then serves until interrupted."""
    import ray
    from ray import serve

    if not ray.is_initialized():
        ray.init(address=ray_address)
    serve.start(http_options={"host": host, "port": port})
    serve.run(application(config, guard, limits, step, replicas, resources, workers, max_turns), name=APP_NAME,
              route_prefix="/")  # returns once the replicas run
    if ready is not None:
        ready()
    if blocking:
        threading.Event().wait()  # until interrupted
