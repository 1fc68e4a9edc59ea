"""``planshape serve``: the reward server (its own HTTP front here, or Ray Serve replicas with ``--ray``)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import tempfile
from collections.abc import Iterator

from planshape.validators.travelplanner.agent.loop import MAX_TURNS
from rich.console import Console

from .fronts import WORKERS_PER_FRONT
from .limits import Limits
from .startup import check_step, serve_shaper

DEFAULT_PORT = 8000
DEFAULT_RESOURCE = "planshape_cpu"


def _serve(args: argparse.Namespace) -> int:
    from planshape.shaping.rollout.cli import need

    need("httptools", "serve")
    need("prometheus_client", "serve")
    from .auth import Guard, networks, read_token
    from .limits import MB

    console = Console(stderr=True)
    token = read_token(args.token_file) if args.token_file else None
    guard = Guard.for_bind(args.host, token, networks(args.allow))
    limits = Limits(int(args.max_body_mb * MB), args.max_samples, args.header_timeout, args.read_timeout,
                    args.idle_timeout, args.max_connections, args.max_line_bytes)
    max_turns = _max_turns(args.max_turns)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    prefix = "/t/<token>" if token else ""
    if args.ray:
        from .ray_deployment import deploy

        resources = _resources(args.resource)
        step = check_step(serve_shaper(args.config, args.workers if args.workers is not None else 0, False), args.step)
        from planshape.shaping.config import as_mapping

        def deployed() -> None:
            console.print(f"planshape serve: {args.replicas} Ray Serve replica(s), each asking for {resources}, at "
                          f"http://{args.host}:{args.port}{prefix}/get_reward (and /reward, /verify, /health, "
                          "/metrics)")

        settings = dict(as_mapping(args.config))  # the replicas get the settings, not a file they may not have
        deploy(settings, guard, limits, step, args.replicas, resources, args.host, args.port, args.ray_address,
               args.workers if args.workers is not None else 0, blocking=True, ready=deployed, max_turns=max_turns)
        return 0
    from planshape.validators.travelplanner.agent.listening import listen

    from .fronts import Children, FrontSpec, front_count, run_front, split
    from .startup import worker_settings

    sock = listen(args.host, args.port, "the reward server")  # a busy port fails before any worker starts
    shaper = serve_shaper(args.config, args.workers)
    step = check_step(shaper, args.step)
    workers = shaper.config.workers
    fronts = front_count(workers, args.fronts)
    shares = split(workers, fronts)
    spec = FrontSpec(shaper.config.model_dump(), worker_settings(shaper, inline=False), shaper.config.sample_budget_s,
                     guard, limits, step, max_turns, args.log_requests)

    def ready() -> None:  # said once the first front serves on the socket
        console.print(f"planshape serve: {workers} scoring worker(s) at http://{args.host}:{sock.getsockname()[1]}"
                      f"{prefix}/get_reward (and /reward, /verify, /health, /metrics), {fronts} front process(es)",
                      soft_wrap=True)

    with _shared_metrics(fronts > 1):
        children = Children(run_front, lambda i: (sock, spec, i, fronts, shares[i]), fronts) if fronts > 1 else None
        try:
            run_front(sock, spec, 0, fronts, shares[0], ready, shaper)
        finally:
            if children is not None:
                children.stop()
    return 0


@contextlib.contextmanager
def _shared_metrics(shared: bool) -> Iterator[None]:
    """With several fronts, one folder for their Prometheus values (set before prometheus_client is imported)."""
    if not shared:
        yield
        return
    from .metrics import MULTIPROC_ENV

    with tempfile.TemporaryDirectory(prefix="planshape-metrics-") as folder:
        os.environ[MULTIPROC_ENV] = folder
        try:
            yield
        finally:
            os.environ.pop(MULTIPROC_ENV, None)


def _max_turns(value: int) -> int | None:
    """``--max-turns``: NeMo Gym transcripts longer than this score as unanswered (0: no cap)."""
    if value < 0:
        raise ValueError(f"--max-turns must be >= 0 (0: no cap), got {value}")
    return value or None


def _resources(specs: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for spec in specs or [f"{DEFAULT_RESOURCE}=1"]:
        name, sep, amount = spec.partition("=")
        try:
            value = float(amount) if sep else 1.0
        except ValueError:
            value = -1.0
        if not name or value <= 0:
            raise ValueError(f"--resource {spec!r}: write NAME=AMOUNT, e.g. {DEFAULT_RESOURCE}=1")
        out[name] = value
    return out


def add_parser(sub: argparse._SubParsersAction) -> None:
    sv = sub.add_parser("serve", help="the reward server: OpenRLHF /get_reward, slime /reward, NeMo Gym /verify, on "
                                      "a pool of scoring processes (or Ray Serve replicas with --ray)")
    sv.add_argument("--config", required=True, help="the run's planshape config (file or inline YAML/JSON)")
    sv.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1; any other needs "
                    "--token-file or --allow)")
    sv.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    sv.add_argument("--token-file", help="a file holding the token clients must send (Authorization: Bearer, a "
                    "/t/TOKEN/ path prefix, or ?token=); at least 16 characters, mode 600")
    sv.add_argument("--allow", action="append", default=[], metavar="CIDR",
                    help="a client network allowed in (repeatable), e.g. 10.0.0.0/8")
    sv.add_argument("--workers", type=int, help="scoring processes (default: the config's workers, at least 1; "
                    "with --ray, per replica, default 0: in the replica)")
    sv.add_argument("--step", type=int, help="the step scored when a request names none (OpenRLHF, slime and NeMo "
                    "Gym send none); required for a staged schedule (default 0)")
    sv.add_argument("--fronts", type=int, help="front processes reading HTTP (default: one per "
                    f"{WORKERS_PER_FRONT} workers, at most one per core); they share the port and split the workers")
    sv.add_argument("--max-body-mb", type=float, default=64.0, help="largest request body (default 64 MB)")
    sv.add_argument("--max-samples", type=int, default=4096, help="most samples in one request (default 4096)")
    defaults = Limits()
    sv.add_argument("--header-timeout", type=float, default=defaults.header_timeout_s, help="seconds a request's "
                    f"headers may take from its first byte (default {defaults.header_timeout_s:g})")
    sv.add_argument("--read-timeout", type=float, default=defaults.read_timeout_s, help="seconds a request's body "
                    f"may take (default {defaults.read_timeout_s:g})")
    sv.add_argument("--idle-timeout", type=float, default=defaults.idle_timeout_s, help="seconds a connection may "
                    f"stay idle between requests (default {defaults.idle_timeout_s:g})")
    sv.add_argument("--max-connections", type=int, default=defaults.max_connections, help="open connections per "
                    "front; past it a new one gets 503 before its request is read (default "
                    f"{defaults.max_connections})")
    sv.add_argument("--max-line-bytes", type=int, default=defaults.max_line_bytes, help="longest request line or "
                    f"header line (default {defaults.max_line_bytes})")
    sv.add_argument("--max-turns", type=int, default=MAX_TURNS, help="NeMo Gym: a transcript of more model turns "
                    f"scores as unanswered, as the turn cap ends an episode in every standard (default {MAX_TURNS}; "
                    "0: no cap)")
    sv.add_argument("--log-requests", action="store_true", help="log one line per request (route label, status, "
                    "time; never the URL)")
    sv.add_argument("--ray", action="store_true", help="run as a Ray Serve deployment (pip install 'planshape[ray]')")
    sv.add_argument("--replicas", type=int, default=1, help="Ray Serve replicas (with --ray; default 1)")
    sv.add_argument("--resource", action="append", default=[], metavar="NAME=AMOUNT",
                    help=f"a custom Ray resource each replica asks for (default {DEFAULT_RESOURCE}=1: start the CPU "
                    f"nodes with ray start --resources '{{\"{DEFAULT_RESOURCE}\": N}}')")
    sv.add_argument("--ray-address", default="auto", help="the Ray cluster to join (default auto)")
    sv.set_defaults(func=_serve)
