"""What a ``Shaper`` holds per process, built on first use: the scoring worker processes and the verdict log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import ShapingConfig
    from ..observe.sample_log import SampleLog
    from ..scores import SampleScore
    from ..scoring_pool import ScoringPool


class ProcessResources:
    """The scoring pool of ``config.workers`` and the verdict log of ``config.log_dir`` (its header: ``header()``,
    what will run), and their shutdown."""

    def __init__(self, config: ShapingConfig, header: Callable[[], dict[str, Any]] = dict):
        self.config = config
        self._header = header
        self._log: SampleLog | None = None
        self._pool: ScoringPool | None = None

    @property
    def pool(self) -> ScoringPool:
        """The scoring processes of ``config.workers`` (each builds this config's scorer once)."""
        if self._pool is None:
            from ..scoring_pool import ScoringPool

            worker = self.config.model_copy(update={"workers": 0, "log_dir": None, "sample_budget_s": None})
            self._pool = ScoringPool(partial(pool_scorer, worker.model_dump()), self.config.workers,
                                     self.config.sample_budget_s)
        return self._pool

    def verdict_log(self) -> SampleLog | None:
        """The process's verdict log (None without ``log_dir``), opened on first use."""
        if self.config.log_dir is None:
            return None
        if self._log is None:
            from ..observe.sample_log import SampleLog

            self._log = SampleLog(self.config.log_dir, meta={"describe": self._header()})
        return self._log

    def log_scores(self, step: int, scores: Sequence[SampleScore]) -> None:
        log = self.verdict_log()
        if log is not None:
            log.scores(step, scores)

    def close(self) -> None:
        """Stop the scoring processes and write out the verdict log (also done at interpreter exit)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._log is not None:
            self._log.close()
            self._log = None


def pool_scorer(config: dict[str, Any]) -> Callable[..., SampleScore]:
    """A pool worker's scorer: this config's ``Scorer``, built once in the worker process."""
    from ..config import ShapingConfig
    from ..reward import Scorer

    return Scorer.from_config(ShapingConfig.model_validate(config)).score
