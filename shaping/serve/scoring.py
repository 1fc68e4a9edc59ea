"""Scores for concurrent requests: every sample of every request through ``Shaper.score_batch``, exactly once.

Trainers send many small requests at once (OpenRLHF and slime one sample each). One scoring thread takes every
sample waiting, groups them by step and scores each group with one ``score_batch`` call, so the scoring pool's
workers stay busy across requests and the scores are the facade's by construction. A sample's future is set
once, with its score; a label that is not a query, or a batch the facade could not score at all, gives failing
scores (``error`` with the reason), never an exception into a request.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..components import ERROR
from ..facade import SampleScore, Shaper, read_query
from .wire import Sample

log = logging.getLogger("planshape.serve")


@dataclass
class _Job:
    sample: Sample
    step: int
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop


class Batcher:
    """Queue samples from any event loop; one thread scores them; ``close`` stops it (waiting samples get
    ``error``)."""

    def __init__(self, shaper: Shaper, default_step: int = 0):
        self.shaper = shaper
        self.default_step = default_step
        self._jobs: list[_Job] = []
        self._cond = threading.Condition()
        self._closed = False
        self.last_error = ""
        self._restarts = [0, 0]  # workers replaced by pools given up on, and by the pool now
        self._thread = threading.Thread(target=self._run, name="planshape-scoring", daemon=True)
        self._thread.start()

    async def score(self, samples: Sequence[Sample], step: int | None = None) -> list[SampleScore]:
        """One score per sample, in order (the sample's own step, else ``step``, else the server's)."""
        loop = asyncio.get_running_loop()
        jobs = [_Job(s, s.step if s.step is not None else (step if step is not None else self.default_step),
                     loop.create_future(), loop) for s in samples]
        with self._cond:
            if self._closed:
                raise RuntimeError("the scoring thread is stopped")
            self._jobs.extend(jobs)
            self._cond.notify()
        return list(await asyncio.gather(*(job.future for job in jobs)))

    @property
    def waiting(self) -> int:
        return len(self._jobs)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._closed:
                    self._cond.wait()
                if self._closed:
                    jobs, self._jobs = self._jobs, []
                    for job in jobs:
                        self._settle(job, self.shaper.unscored(job.step, ERROR, "the server is shutting down"))
                    return
                jobs, self._jobs = self._jobs, []
            by_step: dict[int, list[_Job]] = defaultdict(list)
            for job in jobs:
                by_step[job.step].append(job)
            for step, group in by_step.items():
                for job, score in zip(group, self._score(step, group), strict=True):
                    self._settle(job, score)
            if self.shaper.config.workers > 0 and not self.last_error:
                self._restarts[1] = self.shaper.pool.restarts

    @property
    def restarts(self) -> int:
        """Scoring processes replaced so far (died, or stopped past the budget)."""
        return sum(self._restarts)

    def _score(self, step: int, jobs: list[_Job]) -> list[SampleScore]:
        """``score_batch`` of the jobs whose labels read as queries; the others (and all, should the batch
        fail) score ``error`` with the reason."""
        out: list[SampleScore | None] = [None] * len(jobs)
        readable: list[int] = []
        queries = []
        for i, job in enumerate(jobs):
            try:
                queries.append(read_query(job.sample.label))
                readable.append(i)
            except (ValueError, TypeError) as exc:
                out[i] = self.shaper.unscored(step, ERROR, f"the label is not a TravelPlanner query: {exc}"[:300])
        try:
            scores = self.shaper.score_batch([jobs[i].sample.text for i in readable], queries, step)
        except Exception as exc:  # noqa: BLE001 - the pool could not start: every sample fails, the server lives
            self.last_error = f"{type(exc).__name__}: {exc}"[:300]
            log.error("scoring failed for a batch of %d samples: %s", len(readable), self.last_error)
            scores = [self.shaper.unscored(step, ERROR, f"scoring failed: {self.last_error}") for _ in readable]
            self.shaper.close()  # a pool that gave up is rebuilt for the next batch
            self._restarts = [sum(self._restarts), 0]
        for i, score in zip(readable, scores, strict=True):
            out[i] = score
        return out  # type: ignore[return-value]

    @staticmethod
    def _settle(job: _Job, score: SampleScore) -> None:
        def done() -> None:
            if not job.future.done():  # a request whose client went away was cancelled
                job.future.set_result(score)

        try:
            job.loop.call_soon_threadsafe(done)
        except RuntimeError:  # that event loop has closed
            pass

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=30)
