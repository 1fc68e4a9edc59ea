"""``planshape serve``: the reward server (aiohttp here, or Ray Serve replicas with ``--ray``)."""

from __future__ import annotations

import argparse
import logging

from rich.console import Console

from .startup import check_step, serve_shaper

DEFAULT_PORT = 8000
DEFAULT_RESOURCE = "planshape_cpu"


def _serve(args: argparse.Namespace) -> int:
    from planshape.shaping.rollout.cli import need

    need("aiohttp", "serve")
    need("prometheus_client", "serve")
    from .auth import Guard, networks, read_token
    from .limits import MB, Limits

    console = Console(stderr=True)
    token = read_token(args.token_file) if args.token_file else None
    guard = Guard.for_bind(args.host, token, networks(args.allow))
    limits = Limits(int(args.max_body_mb * MB), args.max_samples)
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
               args.workers if args.workers is not None else 0, blocking=True, ready=deployed)
        return 0
    from planshape.validators.travelplanner.agent.listening import listen

    from .app import run
    from .routes import Service

    sock = listen(args.host, args.port, "the reward server")  # a busy port fails before any worker starts
    shaper = serve_shaper(args.config, args.workers)
    step = check_step(shaper, args.step)

    def ready() -> None:  # said once aiohttp serves on the socket
        console.print(f"planshape serve: {shaper.config.workers} scoring worker(s) at "
                      f"http://{args.host}:{sock.getsockname()[1]}{prefix}/get_reward (and /reward, /verify, /health, "
                      "/metrics)")

    run(Service(shaper, guard, limits, step), sock, ready)
    return 0


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
    sv.add_argument("--max-body-mb", type=float, default=64.0, help="largest request body (default 64 MB)")
    sv.add_argument("--max-samples", type=int, default=4096, help="most samples in one request (default 4096)")
    sv.add_argument("--ray", action="store_true", help="run as a Ray Serve deployment (pip install 'planshape[ray]')")
    sv.add_argument("--replicas", type=int, default=1, help="Ray Serve replicas (with --ray; default 1)")
    sv.add_argument("--resource", action="append", default=[], metavar="NAME=AMOUNT",
                    help=f"a custom Ray resource each replica asks for (default {DEFAULT_RESOURCE}=1: start the CPU "
                    f"nodes with ray start --resources '{{\"{DEFAULT_RESOURCE}\": N}}')")
    sv.add_argument("--ray-address", default="auto", help="the Ray cluster to join (default auto)")
    sv.set_defaults(func=_serve)
