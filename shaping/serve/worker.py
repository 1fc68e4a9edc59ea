"""What each scoring process of ``planshape serve`` does: a request's per-sample work, from its label to its reply.

The front process (``app``, ``routes``) only reads HTTP, splits OpenRLHF batches and hands jobs over; the work a
sample costs is here, in the scoring process, where the store is: reading the label as a query, scoring with the
facade (``Shaper.score``), building the reply of the sample's wire format, and NeMo Gym's tool calls. A job is a
plain tuple and so is its result, so little crosses the process boundary:

==================================  ==========================================================================
``("sample", text, label, step)``   one OpenRLHF sample -> ``("scored", failure, reward, success, values)``
                                    (``values``: every ``metric_names`` value, in order)
``("openrlhf", text, label, step)``  a request of one OpenRLHF sample -> ``("reply", failure, JSON bytes)``
``("slime", body, step)``           slime's request body -> ``("reply", failure, JSON bytes)`` or ``("bad", status,
                                    message)``
``("verify", body, step)``          NeMo Gym's verify body -> the same
``("tool", name, body)``            a NeMo Gym tool call (JSON arguments) -> ``("text", answer)``
==================================  ==========================================================================

``step`` in a body job is the request's step when the header or server gives one (a body's own ``step`` field
wins). The facade's own answers, so the scores are the in-process facade's by construction.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..components import ERROR, NO_ANSWER
from ..facade import SampleScore, Shaper, ShapingConfig
from .limits import parse_json
from .wire import BadRequest, nemo_reply, openrlhf_reply, read_nemo, read_slime, score_fields

Job = tuple[Any, ...]


def encode(value: Any) -> bytes:
    """JSON as every reply is written (UTF-8, compact, no NaN: a value JSON cannot hold is a bug, not a reply)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


class Worker:
    """One scoring process's job handler over its own ``Shaper`` (``settings``: the server's planshape config,
    with this process's workers and budget: 0 and none in a pool, whose parent enforces the budget)."""

    def __init__(self, settings: dict[str, Any], max_turns: int | None = None):
        self.shaper = Shaper(ShapingConfig.model_validate(settings))
        self.shaper.scorer  # noqa: B018 - open the store now: a bad database fails the pool's start
        self.max_turns = max_turns
        self._tools = self.shaper.tools()
        self._handlers: dict[str, Callable[..., tuple[Any, ...]]] = {
            "sample": self._sample, "openrlhf": self._openrlhf, "slime": self._slime, "verify": self._verify,
            "tool": self._tool}

    def __call__(self, kind: str, *args: Any) -> tuple[Any, ...]:
        return self._handlers[kind](*args)

    def score(self, text: Any, label: Any, step: int) -> SampleScore:
        """The facade's score of one output; a label that is not a query scores ``error`` with the reason."""
        try:
            query = Shaper.read_query(label)
        except (ValueError, TypeError) as exc:
            return self.shaper.unscored(step, ERROR, f"the label is not a TravelPlanner query: {exc}"[:300])
        return self.shaper.score(text, query, step)

    def _sample(self, text: Any, label: Any, step: int) -> tuple[Any, ...]:
        score = self.score(text, label, step)
        metrics = score.metrics()
        return ("scored", score.failure, float(score.reward), bool(score.success),
                tuple(metrics[name] for name in self.shaper.metric_names))

    def _openrlhf(self, text: Any, label: Any, step: int) -> tuple[Any, ...]:
        score = self.score(text, label, step)
        return "reply", score.failure, encode(openrlhf_reply(self.shaper, [score]))

    def _slime(self, body: bytes, step: int) -> tuple[Any, ...]:
        try:
            sample = read_slime(parse_json(body))
        except BadRequest as exc:
            return "bad", exc.status, str(exc)
        score = self.score(sample.text, sample.label, sample.step if sample.step is not None else step)
        return "reply", score.failure, encode(score_fields(score))

    def _verify(self, body: bytes, step: int) -> tuple[Any, ...]:
        try:
            request = parse_json(body)
            sample = read_nemo(request, self.max_turns)
        except BadRequest as exc:
            return "bad", exc.status, str(exc)
        if sample.cut is not None:  # the transcript ran past the turn cap: unanswered, as in every standard
            score = self.shaper.unscored(step, NO_ANSWER, sample.cut, sample.label)
        else:
            score = self.score(sample.text, sample.label, step)
        return "reply", score.failure, encode(nemo_reply(request, score))

    def _tool(self, name: str, body: bytes) -> tuple[Any, ...]:
        text = body.decode("utf-8", "replace") if body else "{}"
        return "text", self._tools.call(name, text)


def worker_factory(settings: dict[str, Any], max_turns: int | None) -> Callable[..., tuple[Any, ...]]:
    """A pool worker's job handler, built once in the worker process (picklable through ``functools.partial``)."""
    return Worker(settings, max_turns)
