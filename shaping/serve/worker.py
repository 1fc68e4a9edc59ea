"""What each scoring process of ``planshape serve`` does: a request's per-sample work, from its label to its reply.

The front process (``app``, ``routes``) only reads HTTP, splits OpenRLHF batches and hands jobs over; the work a
sample costs is here, in the scoring process, where the store is: reading the label as a query, scoring with the
facade (``Shaper.score``), building the reply of the sample's wire format, and NeMo Gym's tool calls. A job is a
plain tuple and so is its result, so little crosses the process boundary:

==================================  ==========================================================================
``("openrlhf", body, step, whole)``  OpenRLHF's request body -> ``("reply", failures, JSON bytes)`` for a batch of
                                    0 or 1 sample (what OpenRLHF 0.11 sends) or, with ``whole``, any batch
                                    scored here as a run; ``("split", samples)`` for more without it
                                    (``(text, label, step)`` each, which the front hands to its workers in
                                    runs), or ``("bad", status, message)``
``("samples", samples)``            a run of a split batch's samples, scored one after another, each within the
                                    budget -> ``("rows", rows)``, one ``("scored", ...)`` row each, their
                                    verdict records written in one write once all are scored
``("sample", text, label, step)``   one sample -> ``("scored", failure, reward, success, values)``
                                    (``values``: every ``metric_names`` value, in order)
``("slime", body, step)``           slime's request body -> ``("reply", failures, JSON bytes)`` or ``("bad", ...)``
``("verify", body, step)``          NeMo Gym's verify body -> the same
``("tool", name, body)``            a NeMo Gym tool call (JSON arguments) -> ``("text", answer)``
==================================  ==========================================================================

A request body crosses to the worker as the bytes that arrived: the front decodes no JSON. A run of samples
(``samples``) spares each sample a round trip to the front: each sample has its own budget here
(``budget_s``, the pool's: a sample past it scores ``timeout`` as in process, and the run goes on), and its start
goes to the clock the pool reads (``sample_clock``), so the pool stops the process only when a sample is stuck
past its budget where no signal reaches it (in one C call); then the front scores each sample of that run on its
own, as a ``sample`` job, so only the stuck one fails. A run's verdict records are written when the whole run is
scored, so a run scored again after a kill is logged once. ``step`` in a body
job is the request's step when the header or server gives one (a body's own ``step`` field wins). The facade's
own answers, so the scores are the in-process facade's by construction, and every sample reaches the verdict log
(``log_dir``), the unscored ones (a label that is not a query, a transcript past the turn cap) included.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..budget import Failed, run_with_budget
from ..components import ERROR, NO_ANSWER
from ..facade import SampleScore, Shaper, ShapingConfig, read_query
from .codec import dumps, parse_json
from .heap import keep_heap
from .verdicts import ServedLog, without_log
from .wire import BadRequest, nemo_reply, openrlhf_reply, read_nemo, read_openrlhf, read_slime, score_fields

Job = tuple[Any, ...]


class Worker:
    """One scoring process's job handler over its own ``Shaper`` (``settings``: the server's planshape config,
    with this process's workers and budget: 0 and none in a pool, whose parent enforces the budget;
    ``budget_s``: the pool's budget, each sample's within a run of samples)."""

    def __init__(self, settings: dict[str, Any], max_turns: int | None = None, max_samples: int = 4096,
                 budget_s: float | None = None):
        self.shaper = Shaper(ShapingConfig.model_validate(without_log(settings)))
        self.shaper.scorer.store  # noqa: B018 - open the store now: a bad database fails the pool's start
        self.log = ServedLog(settings.get("log_dir"), self.shaper)
        self.max_turns = max_turns
        self.max_samples = max_samples
        self.budget_s = budget_s
        self.sample_clock: Any = None  # the pool's (``pool.Clocked``): when the current sample of a run started
        self._empty_openrlhf = dumps(openrlhf_reply(self.shaper, []))
        self._tools = self.shaper.tools()
        self._handlers: dict[str, Callable[..., tuple[Any, ...]]] = {
            "sample": self._sample, "samples": self._samples, "openrlhf": self._openrlhf, "slime": self._slime,
            "verify": self._verify, "tool": self._tool}

    def __call__(self, kind: str, *args: Any) -> tuple[Any, ...]:
        return self._handlers[kind](*args)

    def close(self) -> None:
        """Write out the verdict log (the pool calls it when the worker is told to stop)."""
        self.log.close()

    def score(self, text: Any, label: Any, step: int) -> SampleScore:
        """The facade's score of one output, in the verdict log; a label that is not a query scores ``error``
        with the reason."""
        score = self._score(text, label, step)
        self.log.write(step, score)
        return score

    def _score(self, text: Any, label: Any, step: int) -> SampleScore:
        try:
            query = read_query(label)
        except (ValueError, TypeError) as exc:
            return self.shaper.unscored(step, ERROR, f"the label is not a TravelPlanner query: {exc}"[:300])
        return self.shaper.score(text, query, step)

    def _unscored(self, step: int, failure: str, reason: str, label: Any = None) -> SampleScore:
        score = self.shaper.unscored(step, failure, reason, label)
        self.log.write(step, score)
        return score

    def _row(self, score: SampleScore) -> tuple[Any, ...]:
        metrics = score.metrics()
        return ("scored", score.failure, float(score.reward), bool(score.success),
                tuple(metrics[name] for name in self.shaper.metric_names))

    def _sample(self, text: Any, label: Any, step: int) -> tuple[Any, ...]:
        return self._row(self.score(text, label, step))

    def _samples(self, samples: list[tuple[Any, Any, int]]) -> tuple[Any, ...]:
        return "rows", [self._row(score) for score in self._run(samples)]

    def _run(self, samples: list[tuple[Any, Any, int]]) -> list[SampleScore]:
        """A run's scores, one sample after another, each within the budget (its start on the pool's clock);
        their verdict records written once all are scored."""
        scored = []
        for text, label, step in samples:
            if self.sample_clock is not None:
                self.sample_clock.value = time.monotonic()
            outcome = run_with_budget(self._score, (text, label, step), self.budget_s)
            if isinstance(outcome, Failed):  # past its budget, as in process: the run goes on
                outcome = self.shaper.unscored(step, outcome.kind, outcome.reason, label)
            scored.append((step, outcome))
        self.log.write_all(scored)
        return [score for _, score in scored]

    def _openrlhf(self, body: bytes, step: int, whole: bool = False) -> tuple[Any, ...]:
        try:
            samples = read_openrlhf(parse_json(body), self.max_samples)
        except BadRequest as exc:
            return "bad", exc.status, str(exc)
        if not samples:
            return "reply", (), self._empty_openrlhf
        if len(samples) > 1:
            run = [(s.text, s.label, s.step if s.step is not None else step) for s in samples]
            if not whole:
                return "split", run
            scores = self._run(run)
            return "reply", tuple(s.failure for s in scores), dumps(openrlhf_reply(self.shaper, scores))
        sample = samples[0]
        score = self.score(sample.text, sample.label, sample.step if sample.step is not None else step)
        return "reply", (score.failure,), dumps(openrlhf_reply(self.shaper, [score]))

    def _slime(self, body: bytes, step: int) -> tuple[Any, ...]:
        try:
            sample = read_slime(parse_json(body))
        except BadRequest as exc:
            return "bad", exc.status, str(exc)
        score = self.score(sample.text, sample.label, sample.step if sample.step is not None else step)
        return "reply", (score.failure,), dumps(score_fields(score))

    def _verify(self, body: bytes, step: int) -> tuple[Any, ...]:
        try:
            request = parse_json(body)
            sample = read_nemo(request, self.max_turns)
        except BadRequest as exc:
            return "bad", exc.status, str(exc)
        if sample.cut is not None:  # the transcript ran past the turn cap: unanswered, as in every standard
            score = self._unscored(step, NO_ANSWER, sample.cut, sample.label)
        else:
            score = self.score(sample.text, sample.label, step)
        return "reply", (score.failure,), dumps(nemo_reply(request, score))

    def _tool(self, name: str, body: bytes) -> tuple[Any, ...]:
        text = body.decode("utf-8", "replace") if body else "{}"
        return "text", self._tools.call(name, text)


def worker_factory(settings: dict[str, Any], max_turns: int | None, max_samples: int = 4096,
                   budget_s: float | None = None) -> Callable[..., tuple[Any, ...]]:
    """A pool worker's job handler, built once in the worker process (picklable through ``functools.partial``);
    ``budget_s``: the pool's budget (None in process, where the facade's own applies)."""
    keep_heap()
    return Worker(settings, max_turns, max_samples, budget_s)
