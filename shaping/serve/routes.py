"""The reward service, free of any web framework: a request in (``Call``), a JSON or text reply out.

The HTTP front (``app``) and the Ray Serve deployment (``ray_deployment``) are thin shims over
``Service.handle``, so both answer exactly the same routes the same way:

==============================  ========================================================================
``POST /get_reward``            OpenRLHF's batch (``--reward.remote_url http://HOST:PORT/get_reward``)
``POST /`` , ``/reward``        slime / miles' one sample (``--rm-url http://HOST:PORT/reward``)
``POST /seed_session``          NeMo Gym, before every rollout (sets the session cookie)
``POST /<tool>``                NeMo Gym's tool calls (``search_flights``, ... ``calculator``): the toolbox
``POST /verify``                NeMo Gym's verify request
``POST /close_session``         NeMo Gym's Environment Server, after every rollout
``POST /aggregate_metrics``     NeMo Gym, at the end of a rollout collection
``GET /reverify_mode``          NeMo Gym: ``"stateless"`` (a verify reply depends on its request alone)
``GET /health``                 liveness and the scoring side's state (no token needed; it says nothing secret)
``GET /metrics``                Prometheus text
==============================  ========================================================================

Any route also answers under ``/t/<token>/``. Order of work: access (403/401) before the body is read, then
the size limit (413), then the format (400), then scoring, which cannot fail a request.

The front does as little as it can per sample: it reads HTTP and hands the body, as it came, to a scoring process
(``worker``), which reads it, scores it and writes the reply; only a batch of several OpenRLHF samples comes back
to the front split, to be spread over the workers in runs, one a worker. The front decodes JSON only for the NeMo
Gym session routes and for the reply of a sample whose scoring process died or ran past its budget. No line is
logged per request unless asked (``log_requests``).

The step of a request: its ``step`` field (OpenRLHF and slime bodies; planshape's VERL and TRL clients send
it), else the ``X-Planshape-Step`` header, else the server's ``--step``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..budget import Failed
from ..facade import SampleScore, Shaper, trainer_step
from .auth import Guard
from .codec import parse_json
from .limits import Limits
from .metrics import CONTENT_TYPE, Metrics
from .verdicts import ServedLog
from .wire import (
    REVERIFY_MODE,
    SESSION_COOKIE,
    BadRequest,
    aggregate_metrics,
    close_reply,
    nemo_reply,
    read_openrlhf,
    request_step,
    score_fields,
    seed_reply,
)

log = logging.getLogger("planshape.serve")

STEP_HEADER = "X-Planshape-Step"
JSON = "application/json"
TEXT = "text/plain; charset=utf-8"


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
    body: Any  # a JSON value, or bytes sent as they are (JSON already encoded, or text)
    content_type: str = JSON
    headers: dict[str, str] = field(default_factory=dict)


POST_ROUTES = ("/get_reward", "/", "/reward", "/seed_session", "/verify", "/close_session", "/aggregate_metrics")
GET_ROUTES = ("/health", "/metrics", "/reverify_mode")


class Service:
    """One server's routes over a scoring pool (``pool``: ``pool.AsyncPool`` or ``InlinePool`` of
    ``worker.Worker``); ``shaper`` is the front's (metric names, and the zero score of a sample whose scoring
    process died or ran past its budget). Build it inside the running event loop's process."""

    def __init__(self, shaper: Shaper, pool: Any, guard: Guard | None = None, limits: Limits | None = None,
                 default_step: int = 0, log_requests: bool = False, metrics: Metrics | None = None,
                 front: tuple[int, int] = (0, 1)):
        self.shaper = shaper
        self.pool = pool
        self.guard = guard or Guard()
        self.limits = limits or Limits()
        self.default_step = default_step
        self.log_requests = log_requests
        self.metrics = metrics or Metrics()
        self.front = front
        self.tools = frozenset(s["function"]["name"] for s in shaper.tool_schemas)
        self.started = time.time()
        self._names = shaper.metric_names
        self.log = ServedLog(shaper.config.log_dir, shaper)

    async def handle(self, call: Call) -> Reply:
        start = time.perf_counter()
        route, path_token = self.guard.split(call.path)
        known = route in POST_ROUTES or route in GET_ROUTES or route[1:] in self.tools
        label = route if known else "other"
        try:
            reply = await self._route(call, route, path_token)
        except BadRequest as exc:
            reply = Reply(exc.status, {"error": self.guard.redact(str(exc))})
        except Exception as exc:  # noqa: BLE001 - a bug here must not become a traceback page or a dead server
            log.exception("internal error on %s", label)
            reply = Reply(500, {"error": f"internal error ({type(exc).__name__}); the server keeps serving"})
        took = time.perf_counter() - start
        self.metrics.request(label, reply.status, took)
        if self.log_requests:
            log.info("%s %s -> %d (%.1f ms)", call.method, label, reply.status, 1e3 * took)
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
            if route == "/reverify_mode":
                return Reply(200, REVERIFY_MODE)
            self.metrics.pool_state(self.pool.waiting, self.pool.restarts)
            return Reply(200, self.metrics.text(), CONTENT_TYPE)
        tool = route[1:] in self.tools or self._session_call(route, call.headers)
        if route not in POST_ROUTES and not tool:
            raise BadRequest(f"no route {route[:80]!r}: POST /get_reward (OpenRLHF), / or /reward (slime), "
                             "/seed_session, /verify, /close_session, /aggregate_metrics and the tools (NeMo Gym); "
                             "GET /health, /metrics, /reverify_mode", 404)
        if call.method != "POST":
            raise BadRequest(f"{route} takes POST, not {call.method}", 405)
        self.limits.check_length(call.headers.get("Content-Length"))
        body = await call.read_body(self.limits.max_body_bytes)
        step = self._header_step(call.headers)
        if tool:
            return await self._tool(route[1:], body)
        if route == "/get_reward":
            return await self._openrlhf(body, step)
        if route == "/verify":
            return await self._scored_body("verify", "nemo_gym", body, step)
        if route in ("/", "/reward"):
            return await self._scored_body("slime", "slime", body, step)
        parsed = parse_json(body)
        if route == "/seed_session":
            reply, session = seed_reply(parsed)
            cookie = f"{SESSION_COOKIE}={session or os.urandom(16).hex()}; Path=/; HttpOnly; SameSite=Lax"
            return Reply(200, reply, headers={"Set-Cookie": cookie})
        if route == "/close_session":
            return Reply(200, close_reply(parsed))
        return Reply(200, aggregate_metrics(parsed, self._names))

    # --- the routes that score -------------------------------------------------------------------------------

    async def _openrlhf(self, body: bytes, header_step: int | None) -> Reply:
        """OpenRLHF's batch: a worker reads it and answers a batch of one (what 0.11 sends) whole. A larger one is
        answered whole too when no other worker could take a share (one worker, or every worker busy and jobs
        waiting: the batch costs one round trip); on a pool with room it comes back split, and its samples go to
        every worker, a run each (``_score_runs``), so one large request is not scored by one process alone."""
        step = self._step(header_step)
        whole = self.pool.size <= 1 or self.pool.waiting > 0
        result = await self.pool.run("openrlhf", body, step, whole)
        if isinstance(result, Failed):  # the scoring process died or ran past its budget with the request
            return await self._openrlhf_here(body, step, result)
        if result[0] == "bad":  # raised here, so the message is redacted as every other one
            raise BadRequest(result[2], result[1])
        if result[0] == "reply":
            self.metrics.scored("openrlhf", result[1])
            return Reply(200, result[2])
        samples = result[1]
        results = await self._score_runs(samples)
        return self._openrlhf_reply([self._row(r, s[1], s[2]) for r, s in zip(results, samples, strict=True)])

    async def _score_runs(self, samples: list[tuple[Any, Any, int]]) -> list[Any]:
        """Each sample's result (a ``sample`` job's): the samples in as many runs as there are workers, each run a
        ``samples`` job, so a worker goes from one sample to the next without a round trip to the front. A run
        whose process died, or was stopped with a sample stuck past its budget, is scored again one sample a job,
        so that only the sample that killed or stalled it fails, as it would alone."""
        size = -(-len(samples) // max(1, self.pool.size))
        runs = [samples[i:i + size] for i in range(0, len(samples), size)]
        results = await asyncio.gather(*[self.pool.submit("samples", run) for run in runs])
        again = [run for run, result in zip(runs, results, strict=True) if isinstance(result, Failed)]
        alone = iter(await asyncio.gather(*[self.pool.submit("sample", *sample) for run in again for sample in run]))
        return [row for run, result in zip(runs, results, strict=True)
                for row in ([next(alone) for _ in run] if isinstance(result, Failed) else result[1])]

    async def _openrlhf_here(self, body: bytes, step: int, failed: Failed) -> Reply:
        """The body read here after its scoring process failed with it: a batch of one sample was that sample's
        scoring (it fails as its process did); a larger batch was being read or scored as a run, so its samples
        are scored again, each on its own, and only the one that killed or stalled the process fails."""
        samples = read_openrlhf(parse_json(body), self.limits.max_samples)
        steps = [s.step if s.step is not None else step for s in samples]
        if len(samples) <= 1:
            return self._openrlhf_reply([self._row(failed, s.label, at) for s, at in zip(samples, steps, strict=True)])
        results = await asyncio.gather(*[self.pool.submit("sample", s.text, s.label, at)
                                         for s, at in zip(samples, steps, strict=True)])
        return self._openrlhf_reply([self._row(r, s.label, at) for r, s, at in zip(results, samples, steps,
                                                                                   strict=True)])

    def _openrlhf_reply(self, rows: list[tuple[str, float, bool, Sequence[float]]]) -> Reply:
        self.metrics.scored("openrlhf", [r[0] for r in rows])
        columns = {name: [r[3][k] for r in rows] for k, name in enumerate(self._names)}
        return Reply(200, {"rewards": [r[1] for r in rows], "scores": [float(r[2]) for r in rows],
                           "extra_logs": columns})

    def _row(self, result: Any, label: Any, step: int) -> tuple[str, float, bool, Sequence[float]]:
        """A sample's (failure, reward, success, metric values) from its worker, or its zero score."""
        if isinstance(result, Failed):
            metrics = self._unscored(result, label, step).metrics()
            return result.kind, 0.0, False, [metrics[n] for n in self._names]
        return result[1], result[2], result[3], result[4]

    def _unscored(self, failed: Failed, label: Any, step: int) -> SampleScore:
        """The zero score of a sample whose scoring process died, ran past its budget or failed, in the verdict
        log like every other sample."""
        score = self.shaper.unscored(step, failed.kind, failed.reason, label)
        self.log.write(step, score)
        return score

    async def _scored_body(self, kind: str, wire_format: str, body: bytes, header_step: int | None) -> Reply:
        """slime's and NeMo Gym's one sample: the body goes to a worker as it came and its reply comes back
        whole; only when its scoring process died or ran past its budget is the reply built here."""
        result = await self.pool.run(kind, body, self._step(header_step))
        if isinstance(result, Failed):
            return self._failed_reply(kind, wire_format, body, header_step, result)
        if result[0] == "bad":  # raised here, so the message is redacted as every other one
            raise BadRequest(result[2], result[1])
        self.metrics.scored(wire_format, result[1])
        return Reply(200, result[2])

    def _failed_reply(self, kind: str, wire_format: str, body: bytes, header_step: int | None,
                      failed: Failed) -> Reply:
        request = parse_json(body)
        if not isinstance(request, Mapping):
            raise BadRequest("the request body must be a JSON object")
        step = request_step(request)
        score = self._unscored(failed, request.get("label"), step if step is not None else self._step(header_step))
        self.metrics.scored(wire_format, (score.failure,))
        return Reply(200, nemo_reply(request, score) if kind == "verify" else score_fields(score))

    async def _tool(self, name: str, body: bytes) -> Reply:
        result = await self.pool.run("tool", name, body)
        if isinstance(result, Failed):
            text = f"Error: the {name} call failed ({result.kind}: {result.reason})"
        else:
            text = result[1]
        return Reply(200, text.encode("utf-8", "replace"), TEXT)

    # --- the rest ------------------------------------------------------------------------------------------

    @staticmethod
    def _session_call(route: str, headers: Mapping[str, str]) -> bool:
        """A POST to ``/<name>`` from a NeMo Gym episode (it carries the cookie ``/seed_session`` set) is a tool
        call, known tool or not: an unknown name is answered as the toolbox answers it, as in every standard."""
        return (route not in POST_ROUTES and route.count("/") == 1 and len(route) > 1
                and f"{SESSION_COOKIE}=" in headers.get("Cookie", ""))

    def _step(self, header_step: int | None) -> int:
        return header_step if header_step is not None else self.default_step

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
        index, fronts = self.front
        return {"status": "ok" if not self.pool.last_error else "degraded", "workers": self.pool.size,
                "worker_restarts": self.pool.restarts, "samples_waiting": self.pool.waiting,
                "front": index, "fronts": fronts, "uptime_s": round(time.time() - self.started, 1),
                "last_error": self.pool.last_error}

    def close(self) -> None:
        self.pool.close()
        self.log.close()
