"""The scoring processes of one front, driven from its event loop: a job goes to a worker the moment one can take
it, its result comes back through the loop's reader on the worker's pipe, and nothing waits for a batch.

When every worker is busy and jobs are waiting, each worker is handed one more (``PREFETCH``): it is in the
worker's pipe when the worker finishes, so a loaded worker goes from one job to the next without sleeping and
being woken (on a shared host each wake-up costs CPU, caches refilled). A job's budget starts when its worker
starts it: for a job handed in advance, when the result before it comes back. Only a job of at most
``PREFETCH_BYTES`` is handed in advance: the pipe holds it whole, so the loop never blocks writing to a worker
that is itself writing a long result (a larger job waits for an idle worker, which is reading).

A job may score a run of samples one after another (a batch's share of one worker, so that a worker goes from one
sample to the next without a round trip to the front): the worker writes when each sample starts to a clock it
shares with the pool (``Clocked``), and the budget holds for each sample from its own start, with ``RUN_GRACE_TICKS``
ticks more so that the worker's own budget, which stops a sample's Python code and goes on with the run, acts
first; the pool's kill is for a sample stuck where no signal reaches it.

The guarantees are the facade's pool's (``scoring_pool``), kept without a thread between the loop and the pipes:
past its budget a worker is killed and its job fails ``timeout`` (one watchdog timer checks every busy worker's
job a few times a second, rather than a timer per job); a worker that dies fails only the job it was
running (``crash``, with the signal) and is replaced; a job handed in advance that it had not started goes back
to the head of the queue, as does one handed to a worker found dead while idle; every job gets exactly one
result. Results a worker sent before it died are read before its death is counted. A worker that cannot build
its scorer at start is a start-up error (``PoolError``); one that cannot after a restart, ten times in a row,
leaves the pool broken: every job then fails ``error`` with the reason, and ``last_error`` says it (``/health``:
degraded).

``InlinePool`` is the same interface in this process (a Ray Serve replica's default): jobs run in a thread, each
bounded by the facade's in-process budget.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
import pickle
import select
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ..budget import CRASH, TIMEOUT, Failed
from ..components import ERROR
from ..frames import FrameReader, send_frame
from ..scoring_pool import MAX_FAILED_STARTS, PoolError, WorkerProcess

PREFETCH = 2
"""Jobs a worker holds at most: the one it runs and, when all are busy and jobs wait, the next."""
PREFETCH_BYTES = 48 << 10
"""The largest job handed in advance: two fit in a socket pair's buffer (Linux: 208 KiB by default) with room."""


RUN_GRACE_TICKS = 2
"""Ticks a sample of a run has past the budget before the pool stops its process (its worker stops it first)."""


class Clocked:
    """A worker's job handler built by ``factory``, given the clock it shares with the pool: a handler with a
    ``sample_clock`` attribute writes ``time.monotonic()`` there as each sample of a run starts (picklable, so it
    travels to the process as its factory)."""

    def __init__(self, factory: Callable[[], Callable[..., Any]], clock: Any):
        self.factory, self.clock = factory, clock

    def __call__(self) -> Callable[..., Any]:
        handler = self.factory()
        if hasattr(handler, "sample_clock"):
            handler.sample_clock = self.clock
        return handler


class _Held:
    """A job handed to a worker: the job as sent, its future, and when the worker started it (0: not yet)."""

    __slots__ = ("message", "future", "start")

    def __init__(self, message: bytes, future: asyncio.Future):
        self.message, self.future = message, future
        self.start = 0.0

    def took(self) -> float:
        return time.monotonic() - self.start if self.start else 0.0

    def settle(self, value: Any) -> None:
        if not self.future.done():  # a request whose client went away was cancelled
            self.future.set_result(value)


class AsyncPool:
    """``workers`` processes, each building its job handler from ``factory``; ``budget_s`` per job (None: no
    budget). Create, then ``await start()`` inside the running loop."""

    def __init__(self, factory: Callable[[], Callable[..., Any]], workers: int, budget_s: float | None,
                 start_timeout_s: float = 300.0, context: str = "spawn", prefetch: int = PREFETCH):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self.factory = factory
        self.size = workers
        self.budget_s = budget_s
        self.start_timeout_s = start_timeout_s
        self.prefetch = max(1, prefetch)
        self.restarts = 0
        self.last_error = ""
        self._context = multiprocessing.get_context(context)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._workers: list[WorkerProcess] = []
        self._held: dict[WorkerProcess, deque[_Held]] = {}
        self._queue: deque[tuple[bytes, asyncio.Future]] = deque()
        self._clocks: dict[WorkerProcess, Any] = {}
        self._readers: dict[WorkerProcess, FrameReader] = {}
        self._failed_starts = 0
        self._started: asyncio.Future | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._closed = False

    @property
    def waiting(self) -> int:
        """Jobs queued for a free worker."""
        return len(self._queue)

    @property
    def tick_s(self) -> float:
        """How often the budget is checked: an eighth of it, between 10 ms and 250 ms (one timer for the pool,
        not one per job; a job past its budget is stopped at most a tick late, and counts as ``timeout``)."""
        return min(0.25, max(0.01, (self.budget_s or 0.0) / 8))

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    async def start(self) -> None:
        """Start every worker and wait until each has built its handler (``PoolError`` if one cannot)."""
        self._loop = asyncio.get_running_loop()
        self._started = self._loop.create_future()
        for _ in range(self.size):
            self._spawn()
        if self.budget_s is not None:
            self._watchdog = self._loop.call_later(self.tick_s, self._watch)
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
        return await self.submit(*job)

    def submit(self, *job: Any) -> asyncio.Future:
        """The job queued: a future of what ``run`` returns (a batch's runs gathered without a task each). The
        job crosses the pipe as ``scoring_pool.worker_main`` reads it."""
        loop = self._loop or asyncio.get_running_loop()
        future = loop.create_future()
        if self._closed or self._loop is None:
            future.set_result(Failed(ERROR, "the scoring pool is stopped", 0.0))
        elif self.last_error and not self._workers:
            future.set_result(Failed(ERROR, f"scoring failed: {self.last_error}", 0.0))
        else:
            self._queue.append((pickle.dumps((0, job), pickle.HIGHEST_PROTOCOL), future))
            self._dispatch()
        return future

    # --- the loop's side ----------------------------------------------------------------------------------

    def _spawn(self) -> WorkerProcess:
        clock = self._context.RawValue("d", 0.0)
        worker = WorkerProcess(self._context, Clocked(self.factory, clock))
        self._clocks[worker] = clock
        self._workers.append(worker)
        self._held[worker] = deque()
        self._readers[worker] = FrameReader()
        assert self._loop is not None
        self._loop.add_reader(worker.conn.fileno(), self._readable, worker)
        self._loop.add_reader(worker.process.sentinel, self._exited, worker)
        os.set_blocking(worker.conn.fileno(), True)  # uvloop's add_reader makes it non-blocking: a job is
        return worker  # written whole (``send_frame``; results are read as they arrive)

    def _forget(self, worker: WorkerProcess, kill: bool) -> None:
        assert self._loop is not None
        self._loop.remove_reader(worker.conn.fileno())
        self._loop.remove_reader(worker.process.sentinel)
        if worker in self._workers:
            self._workers.remove(worker)
        self._held.pop(worker, None)
        self._clocks.pop(worker, None)
        self._readers.pop(worker, None)
        worker.stop(kill=kill)

    def _dispatch(self) -> None:
        """Hand waiting jobs to idle workers, then, while jobs still wait, one more to each busy one."""
        queue = self._queue
        for depth in range(self.prefetch):
            for worker in self._workers:
                if not queue:
                    return
                held = self._held[worker]
                if len(held) != depth or not worker.ready:
                    continue
                while queue:
                    message, future = queue.popleft()
                    if not future.done():  # else its request went away while it waited
                        break
                else:
                    return
                if depth and len(message) > PREFETCH_BYTES:  # it waits, first in line, for an idle worker
                    queue.appendleft((message, future))
                    return
                try:
                    send_frame(worker.conn.fileno(), message)
                except OSError:  # it died: the job never reached it, so it waits for another worker
                    queue.appendleft((message, future))
                    self._exited(worker)  # changes the workers: their loop ends here
                    return
                held.append(_Held(message, future))
                if not depth:
                    held[0].start = time.monotonic()

    def _watch(self) -> None:
        """Every ``tick_s``: stop each job past its budget (a run's sample past it and the grace)."""
        assert self._loop is not None and self.budget_s is not None
        now = time.monotonic()
        for worker, jobs in list(self._held.items()):
            if not jobs or not jobs[0].start:
                continue
            if now - jobs[0].start < self.budget_s:
                continue
            sample = self._clocks[worker].value  # when its run's current sample started (0: not a run)
            if sample <= jobs[0].start:
                self._expire(worker, jobs[0], now - jobs[0].start)
            elif now - sample >= self.budget_s + RUN_GRACE_TICKS * self.tick_s:
                self._expire(worker, jobs[0], now - sample)
        if not self._closed:
            self._watchdog = self._loop.call_later(self.tick_s, self._watch)

    def _readable(self, worker: WorkerProcess) -> None:
        """What the worker wrote: each whole result in it taken, a partial one kept for the next wake-up."""
        reader = self._readers.get(worker)
        if reader is None:
            return
        try:
            data = os.read(worker.conn.fileno(), reader.want())  # readable, so it returns at once
        except OSError:
            data = b""
        if not data:
            self._exited(worker)
            return
        reader.feed(data)
        for message in reader.messages():
            if not self._take(worker, message):
                return
        self._dispatch()

    def _take(self, worker: WorkerProcess, message: tuple[Any, Any]) -> bool:
        """Act on one message of ``worker``; False when the pool is now broken."""
        tag, payload = message
        if tag == "ready":
            worker.ready = True
            self._failed_starts = 0
            if self._started is not None and not self._started.done() and all(w.ready for w in self._workers):
                self._started.set_result(None)
            return True
        if tag == "failed":
            self._broken(f"a scoring worker could not build its scorer: {payload}", worker)
            return False
        held = self._held.get(worker)
        if not held:
            return True
        done = held.popleft()
        took = done.took()
        if held:  # the job handed in advance starts now
            held[0].start = time.monotonic()
        status, value = payload
        if status == "raised":  # the handler raised: a bug or a configuration error, not the sample's
            self.last_error = f"{type(value).__name__}: {value}"[:300]
            value = Failed(ERROR, f"scoring failed: {self.last_error}", took)
        done.settle(value)
        return True

    def _exited(self, worker: WorkerProcess) -> None:
        if worker not in self._workers:
            return
        reader, fd = self._readers.get(worker), worker.conn.fileno()
        waiting = select.poll()  # not select(): a front with a thousand connections has pipes past its 1,024 fds
        waiting.register(fd, select.POLLIN)
        try:  # what it sent before it died counts
            while reader is not None and waiting.poll(0):
                data = os.read(fd, reader.want())
                if not data:
                    break
                reader.feed(data)
        except OSError:
            pass
        for message in reader.messages() if reader is not None else ():
            if not self._take(worker, message):
                return
        worker.process.join(timeout=5)
        code = worker.process.exitcode
        held = self._held.get(worker) or deque()
        if held:
            running = held.popleft()
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            running.settle(Failed(CRASH, f"the scoring process died ({how})", running.took()))
        elif not worker.ready:
            self._failed_starts += 1
            if self.restarts == 0 or self._failed_starts > MAX_FAILED_STARTS:
                self._broken(f"a scoring worker died while starting (exit code {code})", worker)
                return
        self._replace(worker)

    def _expire(self, worker: WorkerProcess, held: _Held, took: float) -> None:
        jobs = self._held[worker]
        jobs.popleft()
        held.settle(Failed(TIMEOUT, f"scoring stopped after {took:.3g} s (budget {self.budget_s:g} s)", took))
        self._replace(worker)

    def _replace(self, worker: WorkerProcess) -> None:
        """Stop ``worker`` (jobs it was handed and had not started go back to the head of the queue), start
        another."""
        for held in reversed(self._held.get(worker) or ()):
            self._queue.appendleft((held.message, held.future))
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
        failed = Failed(ERROR, f"scoring failed: {self.last_error}", 0.0)
        for held in [h for jobs in self._held.values() for h in jobs]:
            held.settle(failed)
        for each in list(self._workers):
            self._forget(each, kill=True)
        while self._queue:
            _, future = self._queue.popleft()
            if not future.done():
                future.set_result(failed)

    def close(self) -> None:
        """Stop every worker; jobs still waiting fail ``error`` (the server is shutting down)."""
        self._closed = True
        if self._watchdog is not None:
            self._watchdog.cancel()
        stopped = Failed(ERROR, "the server is shutting down", 0.0)
        for worker in list(self._workers):
            jobs = self._held.get(worker) or deque()
            for held in jobs:
                held.settle(stopped)
            self._forget(worker, kill=bool(jobs) or not worker.ready)
        while self._queue:
            _, future = self._queue.popleft()
            if not future.done():
                future.set_result(stopped)


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

    def submit(self, *job: Any) -> asyncio.Future:
        return asyncio.ensure_future(self.run(*job))

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
