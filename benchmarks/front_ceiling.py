"""A ``planshape serve`` front whose scoring processes answer every OpenRLHF request at once with a fixed reply:
what the front itself costs a request when scoring is free and the front is never idle, the most one front core
can pass on (``bench_serve.py`` runs it and prints the workers' worth).

    python benchmarks/front_ceiling.py PORT WORKERS [DATABASE]   # serves 127.0.0.1:PORT; prints "ready PID"

The front is the real one (``app``, ``routes.Service``, ``pool.AsyncPool`` and its pipes); only the job handler
is replaced, by one that returns the reply a scored sample of the 45 train queries gets (53 metrics).
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATABASE = ROOT.parent / "shared" / "travelplanner" / "database"
REPLY = (b'{"rewards":[5.0],"scores":[1.0],"extra_logs":{'
         + b",".join(b'"planshape/metric_%02d":[0.0]' % i for i in range(53)) + b"}}")


class Answered:
    """A job handler that answers every job as a scored batch of one."""

    sample_clock: Any = None

    def __call__(self, kind: str, *args: Any) -> tuple[Any, ...]:
        return "reply", ("",), REPLY


def answered() -> Answered:
    return Answered()


def main() -> None:
    from planshape.shaping import Shaper
    from planshape.shaping.serve.app import run
    from planshape.shaping.serve.auth import Guard
    from planshape.shaping.serve.heap import keep_heap
    from planshape.shaping.serve.limits import Limits
    from planshape.shaping.serve.pool import AsyncPool
    from planshape.shaping.serve.routes import Service

    port, workers = int(sys.argv[1]), int(sys.argv[2])
    database = sys.argv[3] if len(sys.argv) > 3 else str(DATABASE)
    keep_heap()
    shaper = Shaper.from_mapping({"database": database, "estimator": "grpo", "total_steps": 100})
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(1024)

    async def build() -> Service:
        pool = AsyncPool(answered, workers, None)
        await pool.start()
        return Service(shaper, pool, Guard(), Limits())

    run(build, sock, Limits(), lambda: print("ready", os.getpid(), flush=True))


if __name__ == "__main__":
    main()
