"""The serve pool's pipes (``shaping/frames.py`` on both ends): every result a worker wrote counts, also when it
died right after, whichever the event loop sees first (its result or its death), and also when the front's pipes
are past file descriptor 1,024 (a front with a thousand connections open starts its replacements there)."""

from __future__ import annotations

import asyncio
import os
import resource
import sys
from typing import Any

import pytest
from planshape.shaping.budget import CRASH, Failed
from planshape.shaping.serve.pool import AsyncPool

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the pool's workers are Linux processes")


class Handler:
    """``("echo", x)`` answers x; ``("die",)`` ends the process at once."""

    sample_clock: Any = None

    def __call__(self, kind: str, *args: Any) -> Any:
        if kind == "die":
            os._exit(3)
        return "echo", args[0], b"r" * args[1]


def handler() -> Handler:
    return Handler()


async def _rounds(rounds: int) -> list[tuple[Any, Any]]:
    pool = AsyncPool(handler, 1, None)
    await pool.start()
    try:
        out = []
        for i in range(rounds):  # each round: a result, then the death right after it, both in the pipe at once
            size = 100 if i % 2 else 300_000  # a result in one read, and one over many
            answered, died = pool.submit("echo", i, size), pool.submit("die")
            out.append(tuple(await asyncio.wait_for(asyncio.gather(answered, died), 30)))  # never a hang
        return out
    finally:
        pool.close()


def test_a_result_written_just_before_its_worker_died_counts_with_pipes_past_fd_1024():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip(f"the open-file limit ({hard}) cannot reach past 1,024 descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), hard))
    fillers = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        assert min(fillers) < 1024 < max(fillers)
        results = asyncio.run(_rounds(12))
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    for i, (answered, died) in enumerate(results):
        assert answered == ("echo", i, b"r" * (100 if i % 2 else 300_000))
        assert isinstance(died, Failed) and died.kind == CRASH and "exit code 3" in died.reason
