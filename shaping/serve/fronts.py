"""How many front processes a server runs, and the ones after the first.

A front reads HTTP and hands samples to its own scoring processes (``pool``); its CPU per sample is a fraction
of a worker's (``benchmarks/bench_serve.py`` prints both), so one front keeps ``WORKERS_PER_FRONT`` workers busy
and a server with more workers runs more fronts. They share the one listening socket the server bound (the
kernel hands each new connection to one of them), split the workers between them, and write their Prometheus
values to one folder so that any front answers ``/metrics`` for all (``metrics``). The first front is the
server's own process; the others are its children, started after it bound the socket and checked the config,
restarted should one die, and stopped with it.
"""

from __future__ import annotations

import functools
import logging
import math
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planshape.shaping import Shaper

    from .auth import Guard
    from .limits import Limits

WORKERS_PER_FRONT = 4
"""Workers one front keeps busy: on OpenRLHF's one sample a request a front spends 0.12-0.17 of a worker's CPU per
sample on gold and mixed outputs and up to 0.29 on outputs that fail early, where it often waits on its workers; at
its ceiling, never idle, 0.07 ms a request, 7-20 workers' worth (``benchmarks/bench_serve.py``, figures in
docs/serve.md). An idle front costs nothing, so a server errs on the side of more."""

log = logging.getLogger("planshape.serve")


def front_count(workers: int, fronts: int | None) -> int:
    """``--fronts`` (default: one per ``WORKERS_PER_FRONT`` workers, at most one per core); each front needs a
    worker of its own."""
    if fronts is None:
        fronts = min(math.ceil(workers / WORKERS_PER_FRONT), os.cpu_count() or 1)
    if isinstance(fronts, bool) or not isinstance(fronts, int) or fronts < 1:
        raise ValueError(f"--fronts must be a whole number >= 1, got {fronts!r}")
    if fronts > workers:
        raise ValueError(f"--fronts {fronts} is more than --workers {workers}: each front needs a scoring process "
                         "of its own; give more --workers or fewer --fronts")
    return fronts


def split(workers: int, fronts: int) -> list[int]:
    """The workers of each front: as even as can be."""
    return [workers // fronts + (i < workers % fronts) for i in range(fronts)]


def _die_with(parent: int) -> None:
    """A child front stops when the server process is gone (however it ended)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="planshape-parent-watch", daemon=True).start()


def child_main(target: Callable[..., None], parent: int, args: tuple[Any, ...]) -> None:
    """A child front's process: log as the server does, stop with it, then serve."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    _die_with(parent)
    target(*args)


class Children:
    """The fronts after the first: started, watched (a dead one is restarted), stopped."""

    def __init__(self, target: Callable[..., None], args_of: Callable[[int], tuple[Any, ...]], count: int):
        self._context = multiprocessing.get_context("spawn")
        self._target = target
        self._args_of = args_of
        self._processes: dict[int, Any] = {}
        self._stopping = threading.Event()
        for index in range(1, count):
            self._start(index)
        self._watcher = threading.Thread(target=self._watch, name="planshape-fronts", daemon=True)
        self._watcher.start()

    def _start(self, index: int) -> None:
        process = self._context.Process(target=child_main, args=(self._target, os.getpid(), self._args_of(index)),
                                        name=f"planshape-front-{index}")
        process.start()
        self._processes[index] = process

    def _watch(self) -> None:
        while not self._stopping.wait(1.0):
            for index, process in list(self._processes.items()):
                if not process.is_alive() and not self._stopping.is_set():
                    log.warning("front %d stopped (exit code %s); starting it again", index, process.exitcode)
                    self._start(index)

    def stop(self) -> None:
        self._stopping.set()
        for process in self._processes.values():
            if process.is_alive():
                process.terminate()
        for process in self._processes.values():
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
                process.join()


@dataclass(frozen=True)
class FrontSpec:
    """What every front of one server is built from (picklable: it travels to the child fronts)."""

    front_settings: dict[str, Any]  # the server's planshape config (the front reads metric names and tools from it)
    worker_settings: dict[str, Any]  # what each scoring process builds its Shaper from (``startup.worker_settings``)
    budget_s: float | None
    guard: Guard
    limits: Limits
    step: int
    max_turns: int | None
    log_requests: bool


def run_front(sock: socket.socket, spec: FrontSpec, index: int, fronts: int, workers: int,
              ready: Callable[[], None] | None = None, shaper: Shaper | None = None) -> None:
    """One front: its own ``workers`` scoring processes behind ``Service``, serving ``sock`` until stopped."""
    from planshape.shaping import Shaper, ShapingConfig

    from ..scoring_pool import PoolError
    from .app import run
    from .heap import keep_heap
    from .pool import AsyncPool
    from .routes import Service
    from .worker import worker_factory

    keep_heap()
    front = shaper or Shaper(ShapingConfig.model_validate(spec.front_settings))

    async def build() -> Service:
        pool = AsyncPool(functools.partial(worker_factory, spec.worker_settings, spec.max_turns,
                                           spec.limits.max_samples, spec.budget_s), workers, spec.budget_s)
        try:
            await pool.start()
        except PoolError as exc:  # the config's scorer cannot be built: a start-up error, said with its reason
            raise ValueError(str(exc)) from None
        return Service(front, pool, spec.guard, spec.limits, spec.step, spec.log_requests, front=(index, fronts))

    run(build, sock, spec.limits, ready)
