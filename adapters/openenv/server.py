"""The OpenEnv app of the TravelPlanner environment, served as OpenEnv serves environments (``create_app``: HTTP
``/reset`` ``/step`` ``/state`` ``/schema``, the ``/ws`` session protocol, ``/mcp``), bound to loopback unless
told otherwise.

    python -m planshape.adapters.openenv.server --database path/to/database --queries train.csv --port 8000
    # or: uvicorn 'planshape.adapters.openenv.server:app_from_env' --factory   (settings from PLANSHAPE_OPENENV_*)
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from .version import check_version

check_version()

from openenv.core.env_server.http_server import create_app  # noqa: E402
from planshape.shaping.facade import MAX_TURNS, SPLITS, as_mapping, episode_records, shared_shaper  # noqa: E402

from .actions import TravelPlannerAction, TravelPlannerObservation, TravelPlannerState  # noqa: E402
from .environment import NAME, Tasks, TravelPlannerEnvironment  # noqa: E402

DEFAULT_SESSIONS = 8


def build_app(settings: Mapping[str, Any] | str, queries: Sequence[str] = ("sample",), split: str = "all",
              val_size: int | None = None, seed: int = 0, step: int = 0, max_turns: int = MAX_TURNS,
              max_concurrent_envs: int = DEFAULT_SESSIONS) -> Any:
    """The FastAPI app: planshape ``settings`` (the database, mode, ...), the queries served (one split of them),
    the step the reward's stage weights are read at, the turn cap, and the concurrent sessions. Every mistake
    (a missing database, a bad query file, an unknown split) fails here, before serving."""
    shaper = shared_shaper(settings)
    shaper.scorer.store  # noqa: B018 - open the store now: a wrong database fails at start-up
    records = episode_records(shaper, list(queries), split, val_size, seed)
    if not records:
        raise ValueError(f"no queries in {list(queries)} (split {split!r})")
    tasks = Tasks(shaper, records, split, step, max_turns)
    return create_app(lambda: TravelPlannerEnvironment(tasks), TravelPlannerAction, TravelPlannerObservation,
                      env_name=NAME, max_concurrent_envs=max_concurrent_envs, state_cls=TravelPlannerState)


def app_from_env() -> Any:
    """``build_app`` from ``PLANSHAPE_OPENENV_CONFIG`` (planshape settings: a file or inline YAML/JSON),
    ``PLANSHAPE_OPENENV_QUERIES`` (comma-separated files) and ``PLANSHAPE_OPENENV_SPLIT``, for
    ``uvicorn --factory`` and container images."""
    queries = os.environ.get("PLANSHAPE_OPENENV_QUERIES", "sample").split(",")
    return build_app(os.environ.get("PLANSHAPE_OPENENV_CONFIG", '{"database": "sample"}'), queries,
                     os.environ.get("PLANSHAPE_OPENENV_SPLIT", "all"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m planshape.adapters.openenv.server",
                                     description="serve TravelPlanner as an OpenEnv environment")
    parser.add_argument("--config", help="planshape settings (file or inline YAML/JSON); default: the sample world")
    parser.add_argument("--database", help="TravelPlanner database directory or store file (overrides the config's)")
    parser.add_argument("--queries", nargs="+", default=["sample"], help="query files (HF CSV/JSONL/JSON), merged")
    parser.add_argument("--split", choices=SPLITS, default="all", help="all, or a half of Planner-R1's re-split")
    parser.add_argument("--val-size", type=int, help="validation queries of the re-split (default 45)")
    parser.add_argument("--seed", type=int, default=0, help="the re-split's seed")
    parser.add_argument("--step", type=int, default=0, help="the step the reward's stage weights are read at")
    parser.add_argument("--max-turns", type=int, default=MAX_TURNS, help="assistant turns per episode (default 30)")
    parser.add_argument("--sessions", type=int, default=DEFAULT_SESSIONS, help="concurrent sessions (default 8)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: loopback only)")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    settings: dict[str, Any] = {"database": "sample"}
    if args.config:
        settings = dict(as_mapping(args.config))
    if args.database:
        settings["database"] = args.database
    try:
        app = build_app(settings, args.queries, args.split, args.val_size, args.seed, args.step, args.max_turns,
                        args.sessions)
    except (ValueError, OSError) as exc:  # a missing file or a bad setting: one line saying what to fix
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    import uvicorn

    print(json.dumps({"serving": NAME, "url": f"http://{args.host}:{args.port}"}), flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
