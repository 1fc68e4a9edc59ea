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
    """The scoring pool of ``config.workers`` and the verdict log of ``config.log_dir``, and their shutdown."""

    config: ShapingConfig
    _log: SampleLog | None = None
    _pool: ScoringPool | None = None

    if TYPE_CHECKING:
        def describe(self) -> dict[str, Any]: ...  # the verdict log's header (``describe.Description``)

    @property
    def pool(self) -> ScoringPool:
        """The scoring processes of ``config.workers`` (each builds this config's scorer once)."""
        if self._pool is None:
            from ..scoring_pool import ScoringPool

            worker = self.config.model_copy(update={"workers": 0, "log_dir": None, "sample_budget_s": None})
            self._pool = ScoringPool(partial(pool_scorer, type(self), worker.model_dump()), self.config.workers,
                                     self.config.sample_budget_s)
        return self._pool

    def _verdict_log(self) -> SampleLog | None:
        if self.config.log_dir is None:
            return None
        if self._log is None:
            from ..observe.sample_log import SampleLog

            self._log = SampleLog(self.config.log_dir, meta={"describe": self.describe()})
        return self._log

    def _log_scores(self, step: int, scores: Sequence[SampleScore]) -> None:
        log = self._verdict_log()
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


def pool_scorer(shaper: type, config: dict[str, Any]) -> Callable[..., SampleScore]:
    """A pool worker's scorer: this config's ``Shaper``, built once in the worker process."""
    from ..config import ShapingConfig

    return shaper(ShapingConfig.model_validate(config))._score_now
