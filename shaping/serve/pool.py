"""The scoring processes of one front, driven from its event loop: a job goes to an idle worker the moment one is
free, its result comes back through the loop's reader on the worker's pipe, and nothing waits for a batch.

The guarantees are the facade's pool's (``scoring_pool``), kept without a thread between the loop and the pipes:
past the budget a worker is killed and its job fails ``timeout``; a worker that dies fails only the job it held
(``crash``, with the signal) and is replaced; a worker found dead while idle held nothing and is replaced; every
job gets exactly one result. A worker that cannot build its scorer at start is a start-up error (``PoolError``);
one that cannot after a restart, ten times in a row, leaves the pool broken: every job then fails ``error``
with the reason, and ``last_error`` says it (``/health``: degraded).

``InlinePool`` is the same interface in this process (a Ray Serve replica's default): jobs run in a thread, each
bounded by the facade's in-process budget.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ..budget import CRASH, TIMEOUT, Failed
from ..components import ERROR
from ..scoring_pool import MAX_FAILED_STARTS, PoolError, WorkerProcess

Job = tuple[Any, ...]


class _Held:
    """What a busy worker holds: the job's future, when it started, and its budget timer."""

    __slots__ = ("future", "start", "timer")

    def __init__(self, future: asyncio.Future, start: float, timer: asyncio.TimerHandle | None):
        self.future, self.start, self.timer = future, start, timer


class AsyncPool:
    """``workers`` processes, each building its job handler from ``factory``; ``budget_s`` per job (None: no
    budget). Create, then ``await start()`` inside the running loop."""

    def __init__(self, factory: Callable[[], Callable[..., Any]], workers: int, budget_s: float | None,
                 start_timeout_s: float = 300.0, context: str = "spawn"):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self.factory = factory
        self.size = workers
        self.budget_s = budget_s
        self.start_timeout_s = start_timeout_s
        self.restarts = 0
        self.last_error = ""
        self._context = multiprocessing.get_context(context)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._workers: list[WorkerProcess] = []
        self._held: dict[WorkerProcess, _Held] = {}
        self._queue: deque[tuple[Job, asyncio.Future]] = deque()
        self._failed_starts = 0
        self._started: asyncio.Future | None = None
        self._closed = False

    @property
    def waiting(self) -> int:
        """Jobs queued for a free worker."""
        return len(self._queue)

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    async def start(self) -> None:
        """Start every worker and wait until each has built its handler (``PoolError`` if one cannot)."""
        self._loop = asyncio.get_running_loop()
        self._started = self._loop.create_future()
        for _ in range(self.size):
            self._spawn()
        try:
            await asyncio.wait_for(asyncio.shield(self._started), self.start_timeout_s)
        except asyncio.TimeoutError:
            self.close()
            raise PoolError(f"a scoring worker did not start within {self.start_timeout_s:g} s") from None
        except PoolError:
            self.close()
            raise

    async def run(self, *job: Any) -> Any:
        """The job's result, or ``Failed`` (``timeout``, ``crash``, or ``error`` when the pool is broken)."""
        if self._closed or self._loop is None:
            return Failed(ERROR, "the scoring pool is stopped", 0.0)
        if self.last_error and not self._workers:
            return Failed(ERROR, f"scoring failed: {self.last_error}", 0.0)
        future = self._loop.create_future()
        self._queue.append((job, future))
        self._dispatch()
        return await future

    # --- the loop's side ----------------------------------------------------------------------------------

    def _spawn(self) -> WorkerProcess:
        worker = WorkerProcess(self._context, self.factory)
        self._workers.append(worker)
        assert self._loop is not None
        self._loop.add_reader(worker.conn.fileno(), self._readable, worker)
        self._loop.add_reader(worker.process.sentinel, self._exited, worker)
        return worker

    def _forget(self, worker: WorkerProcess, kill: bool) -> None:
        assert self._loop is not None
        self._loop.remove_reader(worker.conn.fileno())
        self._loop.remove_reader(worker.process.sentinel)
        if worker in self._workers:
            self._workers.remove(worker)
        worker.stop(kill=kill)

    def _dispatch(self) -> None:
        for worker in self._workers:
            if not self._queue:
                return
            if not worker.ready or worker in self._held:
                continue
            job, future = self._queue.popleft()
            if future.done():  # its request went away while it waited
                continue
            try:
                worker.conn.send((0, job))
            except OSError:  # it died idle: it held nothing, so the job waits for another worker
                self._queue.appendleft((job, future))
                self._replace(worker)
                return
            assert self._loop is not None
            timer = (self._loop.call_later(self.budget_s, self._expire, worker)
                     if self.budget_s is not None else None)
            self._held[worker] = _Held(future, time.monotonic(), timer)

    def _readable(self, worker: WorkerProcess) -> None:
        if worker not in self._workers:
            return
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._exited(worker)
            return
        tag, payload = message
        if tag == "ready":
            worker.ready = True
            self._failed_starts = 0
            if self._started is not None and not self._started.done() and all(w.ready for w in self._workers):
                self._started.set_result(None)
        elif tag == "failed":
            self._broken(f"a scoring worker could not build its scorer: {payload}", worker)
            return
        else:
            held = self._held.pop(worker, None)
            if held is not None:
                if held.timer is not None:
                    held.timer.cancel()
                status, value = payload
                if status == "raised":  # the handler raised: a bug or a configuration error, not the sample's
                    self.last_error = f"{type(value).__name__}: {value}"[:300]
                    value = Failed(ERROR, f"scoring failed: {self.last_error}", time.monotonic() - held.start)
                if not held.future.done():
                    held.future.set_result(value)
        self._dispatch()

    def _exited(self, worker: WorkerProcess) -> None:
        if worker not in self._workers:
            return
        worker.process.join(timeout=5)
        code = worker.process.exitcode
        held = self._held.pop(worker, None)
        if held is not None:
            if held.timer is not None:
                held.timer.cancel()
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            if not held.future.done():
                held.future.set_result(Failed(CRASH, f"the scoring process died ({how})",
                                              time.monotonic() - held.start))
        elif not worker.ready:
            self._failed_starts += 1
            if self.restarts == 0 or self._failed_starts > MAX_FAILED_STARTS:
                self._broken(f"a scoring worker died while starting (exit code {code})", worker)
                return
        self._replace(worker)

    def _expire(self, worker: WorkerProcess) -> None:
        held = self._held.pop(worker, None)
        if held is None:
            return
        took = time.monotonic() - held.start
        if not held.future.done():
            held.future.set_result(Failed(TIMEOUT, f"scoring stopped after {took:.3g} s (budget {self.budget_s:g} s)",
                                          took))
        self._replace(worker)

    def _replace(self, worker: WorkerProcess) -> None:
        self._forget(worker, kill=True)
        if not self._closed:
            self._spawn()
            self.restarts += 1
        self._dispatch()

    def _broken(self, reason: str, worker: WorkerProcess) -> None:
        """A worker cannot build its scorer: at start a ``PoolError``; later every job fails with the reason."""
        self.last_error = reason[:300]
        if self._started is not None and not self._started.done():
            self._started.set_exception(PoolError(reason))
            return
        for each in list(self._workers):
            self._forget(each, kill=True)
        for held in self._held.values():
            if not held.future.done():
                held.future.set_result(Failed(ERROR, f"scoring failed: {self.last_error}", 0.0))
        self._held.clear()
        while self._queue:
            _, future = self._queue.popleft()
            if not future.done():
                future.set_result(Failed(ERROR, f"scoring failed: {self.last_error}", 0.0))

    def close(self) -> None:
        """Stop every worker; jobs still waiting fail ``error`` (the server is shutting down)."""
        self._closed = True
        for worker in list(self._workers):
            self._forget(worker, kill=worker in self._held or not worker.ready)
        for held in self._held.values():
            if held.timer is not None:
                held.timer.cancel()
            if not held.future.done():
                held.future.set_result(Failed(ERROR, "the server is shutting down", 0.0))
        self._held.clear()
        while self._queue:
            _, future = self._queue.popleft()
            if not future.done():
                future.set_result(Failed(ERROR, "the server is shutting down", 0.0))


class InlinePool:
    """The pool interface in this process: each job in a worker thread (the handler's own budget applies)."""

    def __init__(self, factory: Callable[[], Callable[..., Any]]):
        self.factory = factory
        self.size = 0
        self.restarts = 0
        self.last_error = ""
        self.waiting = 0
        self.pids: list[int] = []
        self._handler: Callable[..., Any] | None = None

    async def start(self) -> None:
        self._handler = await asyncio.to_thread(self.factory)

    async def run(self, *job: Any) -> Any:
        assert self._handler is not None, "start() first"
        self.waiting += 1
        try:
            return await asyncio.to_thread(functools.partial(self._handler, *job))
        except Exception as exc:  # noqa: BLE001 - a handler bug fails its job, never the server
            self.last_error = f"{type(exc).__name__}: {exc}"[:300]
            return Failed(ERROR, f"scoring failed: {self.last_error}", 0.0)
        finally:
            self.waiting -= 1

    def close(self) -> None:
        self._handler = None
