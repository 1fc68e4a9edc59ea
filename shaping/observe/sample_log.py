"""The facade's side of the verdict log: which records a ``Shaper`` writes, and when.

Scores of a step are held until the step's advantages arrive, so that where one process both scores and
estimates (TRL, a plain training loop) each sample becomes **one** record with every field: its verdicts and
its A^E / A^S. The match is checked, not assumed: same step, same batch size, same rewards in the same order.
Otherwise (VERL and OpenRLHF score in other processes than the estimator's) the halves are written as
``score`` and ``advantage`` records. Held scores are written when the next step starts, when advantages
arrive, and at ``close`` / interpreter exit, so every step before the current one is on disk after a crash.
A process that never estimates (a reward server's scoring process, which may serve one step for days and be
stopped with SIGKILL past a sample's budget) holds nothing: ``hold=False`` writes each call's scores at once, in
the caller's thread, so that a kill right after loses none.
"""

from __future__ import annotations

import atexit
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..components import PASSED
from .verdict_log import VerdictLog, advantage_records, score_record

if TYPE_CHECKING:
    from ..scores import SampleScore


class SampleLog:
    """One process's verdict log, fed by the facade."""

    def __init__(self, directory: str | Path, meta: Mapping[str, Any], hold: bool = True):
        self.log = VerdictLog(directory, meta=meta)
        self.hold = hold
        self._step: int | None = None
        self._held: list[SampleScore] = []
        atexit.register(self._write_held)  # runs before the log's own exit hook (registered earlier)

    def scores(self, step: int, scores: Sequence[SampleScore]) -> None:
        if self._step is not None and self._step != step:
            self._write_held()
        if not self.hold:  # on disk before the caller goes on
            self.log.write_now(_score_rows(step, scores))
            return
        self._step = step
        self._held.extend(scores)

    def scores_each(self, scored: Sequence[tuple[int, SampleScore]]) -> None:
        """Samples scored one by one, each with its own step, written as ``scores`` writes each (``hold=False``)
        but in one write: a run of samples a reward server's scoring process scored in one job."""
        self.log.write_now([row for step, score in scored for row in _score_rows(step, [score])])

    def advantages(self, step: int, groups: list[Any], reward: np.ndarray, success: np.ndarray, turns: np.ndarray,
                   lengths: np.ndarray, a_e: np.ndarray, a_s: np.ndarray) -> None:
        held = self._held if self._step == step else []
        if held and len(held) == len(reward) and np.allclose([s.reward for s in held], reward):
            self.log.add_later(partial(_sample_rows, step, list(held), groups, reward, success, turns, lengths,
                                       a_e, a_s))
            self._held, self._step = [], None
        else:
            self._write_held(flush=False)
            self.log.add_later(partial(_advantage_rows, step, groups, reward, success, turns, lengths, a_e, a_s))
        self.log.flush(step)

    def _write_held(self, flush: bool = True) -> None:
        if self._held and self._step is not None:  # held scores always have their step
            self.log.add_later(partial(_score_rows, self._step, list(self._held)))
            if flush:
                self.log.flush(self._step)
        self._held, self._step = [], None

    def close(self) -> None:
        self._write_held()
        self.log.close()


def _score_rows(step: int, scores: Sequence[SampleScore]) -> list[dict[str, Any]]:
    """Records of scored samples (built on the log's writer thread)."""
    rows = []
    for i, s in enumerate(scores):
        watch = s.watch
        exploit = watch is not None and watch.exploit
        rows.append(score_record(step, i, s.reward, s.components, s.failure or PASSED, s.verdicts,
                                 official_pass=None if watch is None else watch.official_pass,
                                 strict_pass=None if watch is None else watch.strict_pass, success=s.success,
                                 exploit=None if watch is None else exploit,
                                 rules=(watch.rules or (watch.rule,)) if watch is not None and exploit else (),
                                 stage=s.stage,
                                 level=s.level or None, days=s.days or None))
    return rows


def _advantage_rows(step: int, groups: list[Any], reward: np.ndarray, success: np.ndarray, turns: np.ndarray,
                    lengths: np.ndarray, a_e: np.ndarray, a_s: np.ndarray) -> list[dict[str, Any]]:
    return advantage_records(step, groups, reward, success, turns, lengths, a_e, a_s)


def _sample_rows(step: int, scores: Sequence[SampleScore], groups: list[Any], reward: np.ndarray,
                 success: np.ndarray, turns: np.ndarray, lengths: np.ndarray, a_e: np.ndarray,
                 a_s: np.ndarray) -> list[dict[str, Any]]:
    """One record per sample with both halves (scores and advantages of the same batch)."""
    both = zip(_score_rows(step, scores), _advantage_rows(step, groups, reward, success, turns, lengths, a_e, a_s),
               strict=True)
    return [{**score, **adv, "kind": "sample"} for score, adv in both]
