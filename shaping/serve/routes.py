"""The reward service, free of any web framework: a request in (``Call``), a JSON or text reply out.

The aiohttp app (``app``) and the Ray Serve deployment (``ray_deployment``) are thin shims over ``Service.handle``,
so both answer exactly the same routes the same way:

=========================  =============================================================================
``POST /get_reward``       OpenRLHF's batch (``--reward.remote_url http://HOST:PORT/get_reward``)
``POST /`` , ``/reward``   slime / miles' one sample (``--rm-url http://HOST:PORT/reward``)
``POST /seed_session``     NeMo Gym, before every rollout (nothing to seed: ``{}``)
``POST /verify``           NeMo Gym's verify request
``GET /health``            liveness and the scoring side's state (no token needed; it says nothing secret)
``GET /metrics``           Prometheus text
=========================  =============================================================================

Any route also answers under ``/t/<token>/``. Order of work: access (403/401) before the body is read, then
the size limit (413), then the format (400), then scoring, which cannot fail a request.

The step of a request: its ``step`` field (OpenRLHF and slime bodies; planshape's VERL and TRL clients send
it), else the ``X-Planshape-Step`` header, else the server's ``--step``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..facade import Shaper, trainer_step
from .auth import Guard
from .limits import Limits, parse_json
from .metrics import CONTENT_TYPE, Metrics
from .scoring import Batcher
from .wire import BadRequest, nemo_reply, openrlhf_reply, read_nemo, read_openrlhf, read_slime, score_fields

log = logging.getLogger("planshape.serve")

STEP_HEADER = "X-Planshape-Step"
JSON = "application/json"


@dataclass
class Call:
    """One HTTP request as the service sees it; the body is read (``read_body(limit)``) only after access."""

    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    peer: str | None
    read_body: Callable[[int], Awaitable[bytes]]


@dataclass
class Reply:
    status: int
    body: Any  # a JSON value, or bytes for text replies
    content_type: str = JSON


POST_ROUTES = ("/get_reward", "/", "/reward", "/seed_session", "/verify")
GET_ROUTES = ("/health", "/metrics")


class Service:
    """One ``Shaper`` behind the three wire formats (build it inside a running event loop's process)."""

    def __init__(self, shaper: Shaper, guard: Guard | None = None, limits: Limits | None = None,
                 default_step: int = 0):
        self.shaper = shaper
        self.guard = guard or Guard()
        self.limits = limits or Limits()
        self.metrics = Metrics()
        self.batcher = Batcher(shaper, default_step)
        self.started = time.time()

    async def handle(self, call: Call) -> Reply:
        start = time.perf_counter()
        route, path_token = self.guard.split(call.path)
        known = route in POST_ROUTES or route in GET_ROUTES
        label = route if known else "other"
        try:
            reply = await self._route(call, route, path_token)
        except BadRequest as exc:
            reply = Reply(exc.status, {"error": str(exc)})
        except Exception as exc:  # noqa: BLE001 - a bug here must not become a traceback page or a dead server
            log.exception("internal error on %s", label)
            reply = Reply(500, {"error": f"internal error ({type(exc).__name__}); the server keeps serving"})
        self.metrics.requests.labels(label, str(reply.status)).inc()
        self.metrics.latency.labels(label).observe(time.perf_counter() - start)
        log.info("%s %s -> %d (%.1f ms)", call.method, label, reply.status, 1e3 * (time.perf_counter() - start))
        return reply

    async def _route(self, call: Call, route: str, path_token: str | None) -> Reply:
        if route == "/health" and call.method == "GET":
            return Reply(200, self.health())
        denied = self.guard.check(call.peer, path_token, call.headers, call.query)
        if denied is not None:
            return Reply(denied[0], {"error": denied[1]})
        if route in GET_ROUTES:
            if call.method != "GET":
                raise BadRequest(f"{route} takes GET, not {call.method}", 405)
            self.metrics.waiting.set(self.batcher.waiting)
            self.metrics.restarts.set(self.batcher.restarts)
            return Reply(200, self.metrics.text(), CONTENT_TYPE)
        if route not in POST_ROUTES:
            raise BadRequest(f"no route {route!r}: POST /get_reward (OpenRLHF), / or /reward (slime), "
                             "/seed_session and /verify (NeMo Gym); GET /health, /metrics", 404)
        if call.method != "POST":
            raise BadRequest(f"{route} takes POST, not {call.method}", 405)
        self.limits.check_length(call.headers.get("Content-Length"))
        body = parse_json(await call.read_body(self.limits.max_body_bytes))
        step = self._header_step(call.headers)
        if route == "/get_reward":
            samples = read_openrlhf(body, self.limits.max_samples)
            scores = await self.batcher.score(samples, step)
            self.metrics.scored("openrlhf", scores)
            return Reply(200, openrlhf_reply(self.shaper, scores))
        if route == "/seed_session":
            if not isinstance(body, Mapping):
                raise BadRequest("the request body must be a JSON object (NeMo Gym's run request)")
            return Reply(200, {})
        if route == "/verify":
            (score,) = await self.batcher.score([read_nemo(body)], step)
            self.metrics.scored("nemo_gym", [score])
            return Reply(200, nemo_reply(body, score))
        (score,) = await self.batcher.score([read_slime(body)], step)
        self.metrics.scored("slime", [score])
        return Reply(200, score_fields(score))

    def _header_step(self, headers: Mapping[str, str]) -> int | None:
        value = headers.get(STEP_HEADER)
        if value is None:
            return None
        try:
            return trainer_step(int(value), STEP_HEADER)
        except ValueError:
            raise BadRequest(f"header {STEP_HEADER} must be a whole number >= 0 (optimizer steps completed), "
                             f"got {value[:40]!r}") from None

    def health(self) -> dict[str, Any]:
        return {"status": "ok" if not self.batcher.last_error else "degraded", "workers": self.shaper.config.workers,
                "worker_restarts": self.batcher.restarts, "samples_waiting": self.batcher.waiting,
                "uptime_s": round(time.time() - self.started, 1), "last_error": self.batcher.last_error}

    def close(self) -> None:
        self.batcher.close()
        self.shaper.close()
