"""``planshape rollout`` (evaluate a served model) and ``planshape mcp`` (the tools as an MCP server)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import TYPE_CHECKING, Any

from planshape.validators.travelplanner.agent.loop import MAX_TURNS
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from planshape.shaping import Shaper

SERVE_EXTRA = "pip install 'planshape[serve]'"


def need(module: str, command: str) -> None:
    """A missing optional dependency is a setup mistake: say which extra installs it."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise SystemExit(f"planshape {command} needs the '{module}' package: {SERVE_EXTRA}")


def shaper_from(args: argparse.Namespace, console: Console) -> Shaper:
    """The ``--config`` file's planshape settings with ``--database`` on top (the sample world when neither
    names one). A rollout only scores, so what estimating needs (``total_steps``) is not asked."""
    from planshape.shaping import Shaper, ShapingConfig  # on use: `planshape --help` stays quick
    from planshape.shaping.config import SAMPLE_WORLD, as_mapping

    settings: dict[str, Any] = dict(as_mapping(args.config)) if args.config else {}
    if args.database is not None:
        settings["database"] = args.database
    if "database" not in settings:
        console.print("[dim]no --database given: using the bundled sample world[/dim]")
        settings["database"] = SAMPLE_WORLD
    return Shaper(ShapingConfig.from_mapping(settings))


def _rollout(args: argparse.Namespace) -> int:
    need("aiohttp", "rollout")
    from .agent import ERROR
    from .inputs import check_world, read_inputs
    from .progress import LiveProgress
    from .run_dir import RESULTS, RunDir
    from .runner import roll_out
    from .settings import RolloutSettings
    from .summary import finish, print_summary

    console = Console()
    settings = RolloutSettings(
        base_url=args.base_url, model=args.model, concurrency=args.concurrency, max_turns=args.max_turns,
        temperature=args.temperature, samples=args.samples, max_tokens=args.max_tokens, tool_format=args.tool_format,
        request_timeout_s=args.request_timeout, retries=args.retries, seed=args.seed, extra_body=_json_object(args),
        api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY")
    shaper = shaper_from(args, console)
    inputs = read_inputs(args.queries, args.split)
    check_world(inputs, shaper.scorer.store, _world(str(shaper.config.database)))  # scorer: it has one
    run_dir = RunDir(args.output)
    run = {"settings": settings.fingerprint(), "planshape": shaper.describe(),
           "queries": {"file": inputs.path.name, "sha256": inputs.digest, "rows": len(inputs.records)},
           "metrics_mode": args.mode, "split": inputs.split}
    total = len(inputs.records) * settings.samples
    try:
        with LiveProgress(total, not args.no_progress, console) as progress:
            results = asyncio.run(roll_out(inputs, shaper, settings, run_dir, run, progress, args.retry_failed))
    except KeyboardInterrupt:
        console.print(f"interrupted: the finished trajectories are in {escape(str(run_dir.path / RESULTS))}; rerun the "
                      "same command to resume")
        return 130
    console.print(f"rollout: {progress.line()}")
    summary = finish(run_dir, inputs, results, settings, shaper.scorer.store, args.mode)
    print_summary(summary, run_dir, console, shaper.config.mode)
    if all(r["status"] == ERROR for r in results):
        console.print(f"[red]no trajectory ran[/red]: every one failed its requests (first: "
                      f"{escape(str(results[0]['error']))})")
        return 1
    return 0


def _world(database: str) -> str:
    """The chosen sandbox as an error message names it."""
    from planshape.shaping.config import SAMPLE_WORLD

    return "the bundled sample world" if database == SAMPLE_WORLD else f"the database {database}"


def _json_object(args: argparse.Namespace) -> dict[str, Any] | None:
    if args.extra_body is None:
        return None
    try:
        return json.loads(args.extra_body)
    except ValueError as exc:
        raise ValueError(f"--extra-body is not JSON ({exc})") from None


def _mcp(args: argparse.Namespace) -> int:
    need("mcp", "mcp")
    from importlib.metadata import version

    from planshape.validators.travelplanner.agent import mcp_server

    console = Console(stderr=True)  # stdout is the MCP channel in stdio mode
    tools = shaper_from(args, console).tools()
    if args.transport == "stdio":
        mcp_server.serve_stdio(tools, version("planshape"))
    else:
        sock = mcp_server.listen(args.host, args.port)  # bound first: a busy port fails before "serving at"
        port = sock.getsockname()[1]
        console.print(f"MCP server (streamable HTTP) serving at http://{args.host}:{port}{mcp_server.HTTP_PATH}",
                      markup=False)
        mcp_server.serve_http(tools, sock, args.host, version("planshape"))
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    ro = sub.add_parser("rollout", help="evaluate a served model (OpenAI-compatible endpoint) on TravelPlanner "
                                        "queries with the seven tools")
    ro.add_argument("queries", help="queries: Hugging Face CSV/JSONL of a split, or 'sample' (the sample world's)")
    ro.add_argument("--base-url", required=True, help="the endpoint, e.g. http://127.0.0.1:8000/v1 "
                                                      "(API key from $OPENAI_API_KEY, if it needs one)")
    ro.add_argument("--model", required=True, help="the served model name")
    ro.add_argument("-o", "--output", required=True, metavar="RUN_DIR",
                    help="run directory; rerun with the same one to resume")
    ro.add_argument("--concurrency", type=int, default=8, help="trajectories in flight (default 8)")
    ro.add_argument("--max-turns", type=int, default=MAX_TURNS,
                    help=f"assistant turns per trajectory (default {MAX_TURNS}, Planner-R1's)")
    ro.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0: greedy)")
    ro.add_argument("--samples", type=int, default=1, help="trajectories per query (default 1)")
    ro.add_argument("--max-tokens", type=int, help="generated tokens per turn (default: the server's)")
    ro.add_argument("--seed", type=int, help="sampling seed sent with every request")
    ro.add_argument("--extra-body", metavar="JSON", help="more request fields, e.g. "
                    "'{\"top_p\": 0.95, \"chat_template_kwargs\": {\"enable_thinking\": false}}'")
    ro.add_argument("--tool-format", choices=("native", "text"), default="native",
                    help="native: the API's tools= and tool_calls (needs the server's tool parser); text: the "
                         "tools in the system prompt and <tool_call> blocks parsed here")
    ro.add_argument("--request-timeout", type=float, default=600.0, help="seconds per request (default 600)")
    ro.add_argument("--retries", type=int, default=5,
                    help="retries of a request on 429/5xx/timeouts/connection errors, with backoff (default 5)")
    ro.add_argument("--retry-failed", action="store_true", help="rerun the trajectories whose requests failed")
    ro.add_argument("--config", help="a planshape config (JSON/YAML): database, reward mode, tool settings")
    ro.add_argument("--database", help="TravelPlanner database directory or store file (overrides the config's)")
    ro.add_argument("--mode", choices=("official", "strict"), default="official", help="mode of the metrics table")
    ro.add_argument("--split", choices=("train", "validation", "test"),
                    help="the official split (its fixed hard-micro denominator; test: write the submission only)")
    ro.add_argument("--no-progress", action="store_true", help="no progress bar")
    ro.set_defaults(func=_rollout)

    mc = sub.add_parser("mcp", help="serve the seven tools over MCP (stdio or streamable HTTP)")
    mc.add_argument("--config", help="a planshape config (JSON/YAML): database and tool settings")
    mc.add_argument("--database", help="TravelPlanner database directory or store file (overrides the config's)")
    mc.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    mc.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    mc.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    mc.set_defaults(func=_mcp)
