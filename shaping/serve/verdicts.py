"""The server's verdict log (``log_dir`` of its config): every sample, written as it is scored.

A trainer's process holds a step's scores until its advantages arrive, to write one record per sample
(``observe.sample_log``). A server never estimates, may serve one step for days (OpenRLHF, slime and NeMo Gym send
no step), and stops a scoring process with SIGKILL past a sample's budget: held scores would grow without end
and die with the process. So each scoring process and each front writes what it scores at once, a file each: the
workers every sample they score (label errors and transcripts past the turn cap included), the front every
sample whose scoring process died, ran past its budget or failed (``crash``, ``timeout``, ``error``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..facade import SampleScore, Shaper
    from ..observe.sample_log import SampleLog


def without_log(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A process's config with no ``log_dir``: its ``Shaper`` writes nothing itself (``ServedLog`` does)."""
    return {**settings, "log_dir": None}


class ServedLog:
    """Scores to the verdict log of ``log_dir`` (None: nowhere), handed to its writer thread as they come."""

    def __init__(self, log_dir: str | None, shaper: Shaper):
        self._log: SampleLog | None = None
        if log_dir is not None:
            from ..observe.sample_log import SampleLog

            self._log = SampleLog(log_dir, meta={"describe": {**shaper.describe(), "log_dir": log_dir}}, hold=False)

    def write(self, step: int, score: SampleScore) -> None:
        if self._log is not None:
            self._log.scores(step, [score])

    def write_all(self, scored: Sequence[tuple[int, SampleScore]]) -> None:
        """The records of a run of samples (``(step, score)`` each), as ``write`` makes them, in one write."""
        if self._log is not None and scored:
            self._log.scores_each(scored)

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
