"""A process pool for trainers that score a whole batch in one call, with a time budget per sample.

Why not ``concurrent.futures.ProcessPoolExecutor``: when one of its workers dies the whole pool breaks and
every pending sample fails, and a stuck worker cannot be stopped. Here each worker takes one sample at a time
over its own pipe, so the parent always knows which sample a worker holds: a worker past the sample's budget
is killed (``timeout``), a worker that dies marks only its sample (``crash``), a fresh worker replaces it, and
the rest of the batch goes on. Results come back in input order, one per sample. A worker found dead when it is
handed a sample (killed while idle, between or during batches) is replaced and the sample goes to another worker:
it held nothing, so nothing fails. Only a scorer that cannot start at all is an error (``PoolError``).

Each worker builds its scorer once, from ``factory`` (a picklable zero-argument callable returning
``score(*args)``); plugins are found in every worker through their entry points, as in any process.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import time
from collections import deque
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from .budget import CRASH, TIMEOUT, Failed, check_budget
from .frames import FrameReader, send_frame

_MISSING = object()
MAX_FAILED_STARTS = 10  # replacements in a row that may die before they are ready (killed from outside); more: give up


def worker_main(factory: Callable[[], Callable[..., Any]], conn: Connection) -> None:
    """A worker: build the scorer, say ready, then score one sample per message until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the trainer, which stops its workers
    try:
        score = factory()
    except BaseException as exc:  # noqa: BLE001 - a configuration error, reported by the parent
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", None))
    try:
        _serve_jobs(score, conn)
    finally:  # told to stop, or the parent is gone: a handler with a ``close`` (a log to write out) gets it called
        close = getattr(score, "close", None)
        if callable(close):
            close()


def _serve_jobs(score: Callable[..., Any], conn: Connection) -> None:
    """Each job the parent wrote, in order (read in ``Connection``'s frames, as many at a read as have arrived),
    its result written back as one frame."""
    fd, reader = conn.fileno(), FrameReader()
    while True:
        for message in reader.messages():
            if message is None:
                return
            index, args = message
            try:
                result = pickle.dumps((index, ("ok", score(*args))), pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:  # noqa: BLE001 - the scorer raised (a configuration error): re-raised there
                sent = exc if _picklable(exc) else RuntimeError(f"{type(exc).__name__}: {exc}")
                result = pickle.dumps((index, ("raised", sent)), pickle.HIGHEST_PROTOCOL)
            try:
                send_frame(fd, result)
            except OSError:  # the parent is gone
                return
        try:
            data = os.read(fd, reader.want())
        except OSError:
            return
        if not data:
            return
        reader.feed(data)


def _picklable(obj: Any) -> bool:
    try:
        pickle.dumps(obj)
    except Exception:  # noqa: BLE001 - anything unpicklable is sent as text
        return False
    return True


class WorkerProcess:
    """One scoring process and its pipe (``worker_main``); ``task`` is what it holds, for its owner to track."""

    def __init__(self, context: Any, factory: Callable[[], Any]):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=worker_main, args=(factory, child), daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self.task: tuple[int, float] | None = None  # (sample index, start time)

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join(timeout=None if kill else 5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


class PoolError(RuntimeError):
    """The pool could not start its workers (the scorer factory failed)."""


class ScoringPool:
    """``workers`` processes scoring samples with ``budget_s`` seconds each (None: no budget)."""

    def __init__(self, factory: Callable[[], Callable[..., Any]], workers: int, budget_s: float | None = None,
                 context: str = "spawn", start_timeout_s: float = 300.0):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self.factory = factory
        self.budget_s = check_budget(budget_s)
        self.start_timeout_s = start_timeout_s
        self._context = multiprocessing.get_context(context)
        self._workers = [WorkerProcess(self._context, factory) for _ in range(workers)]
        self.restarts = 0
        self._failed_starts = 0  # replacements in a row that died before they were ready
        self._await_ready()

    def _await_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        for worker in self._workers:
            while not worker.ready:
                left = deadline - time.monotonic()
                if left <= 0 or not worker.conn.poll(left):
                    self.close()
                    raise PoolError(f"a scoring worker did not start within {self.start_timeout_s:g} s")
                self._receive(worker, [])

    def _receive(self, worker: WorkerProcess, results: list) -> None:
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._died(worker, results)
            return
        tag, payload = message
        if tag == "ready":
            worker.ready = True
            self._failed_starts = 0
        elif tag == "failed":
            self.close()
            raise PoolError(f"a scoring worker could not build its scorer: {payload}")
        else:
            status, value = payload
            if status == "raised":
                self.close()
                raise value
            results[tag] = value
            worker.task = None

    def _died(self, worker: WorkerProcess, results: list) -> None:
        worker.process.join(timeout=5)  # its pipe can close before the process is reaped: wait for the exit code
        code = worker.process.exitcode
        if worker.task is not None:
            index, start = worker.task
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            results[index] = Failed(CRASH, f"the scoring process died ({how})", time.monotonic() - start)
        elif not worker.ready:
            self._failed_starts += 1
            if self.restarts == 0 or self._failed_starts > MAX_FAILED_STARTS:  # it cannot start, not a bad sample
                self.close()
                raise PoolError(f"a scoring worker died while starting (exit code {code})")
        self._replace(worker, kill=True)

    def _replace(self, worker: WorkerProcess, kill: bool) -> None:
        worker.stop(kill=kill)
        position = self._workers.index(worker)
        self._workers[position] = WorkerProcess(self._context, self.factory)
        self.restarts += 1

    def map(self, items: Sequence[Sequence[Any]]) -> list[Any]:
        """``score(*item)`` for every item, or ``Failed``; in input order, always one per item."""
        if not self._workers:
            raise PoolError("the scoring pool is closed")
        results: list[Any] = [_MISSING] * len(items)
        queue = deque(range(len(items)))
        while queue or any(w.task is not None for w in self._workers):
            now = time.monotonic()
            for worker in list(self._workers):
                if worker.ready and worker.task is None and queue:
                    index = queue.popleft()
                    try:
                        worker.conn.send((index, tuple(items[index])))
                    except OSError:  # it died idle (its pipe is closed): it held nothing, so the sample waits
                        queue.appendleft(index)
                        self._died(worker, results)
                        continue
                    worker.task = (index, now)
            waits = [w.task[1] + self.budget_s - now for w in self._workers
                     if w.task is not None and self.budget_s is not None]
            timeout = max(0.0, min(waits)) if waits else None
            watched = {w.conn: w for w in self._workers}
            watched.update({w.process.sentinel: w for w in self._workers})
            for ready in wait(list(watched), timeout):
                worker = watched[ready]
                if worker not in self._workers:
                    continue  # replaced earlier in this round
                if ready is worker.conn or worker.conn.poll():
                    self._receive(worker, results)
                elif not worker.process.is_alive():
                    self._died(worker, results)
            self._expire(results)
        return results

    def _expire(self, results: list) -> None:
        if self.budget_s is None:
            return
        now = time.monotonic()
        for worker in list(self._workers):
            if worker.task is not None and now - worker.task[1] >= self.budget_s:
                index, start = worker.task
                results[index] = Failed(TIMEOUT, f"scoring stopped after {now - start:.3g} s "
                                                 f"(budget {self.budget_s:g} s)", now - start)
                worker.task = None
                self._replace(worker, kill=True)

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    @property
    def busy_pids(self) -> list[int]:
        """The workers holding a sample now (read from another thread while ``map`` runs: a snapshot)."""
        return [w.process.pid for w in list(self._workers) if w.task is not None and w.process.pid is not None]

    def close(self) -> None:
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop(kill=not worker.ready or worker.task is not None)

    def __enter__(self) -> ScoringPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_workers", None) and os is not None:
            self.close()
