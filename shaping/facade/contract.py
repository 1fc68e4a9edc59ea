"""The adapter contract as types: one signature for each name every ``planshape.adapters.<trainer>`` defines.

A trainer's own entry points keep the trainer's shape (VERL's ``compute_score``, TRL's ``reward_funcs`` callable,
OpenRLHF's ``reward_func``); behind them each adapter goes through the names below, so a reader finds the same shape
in every adapter, and ``tests/adapters/conformance.py`` (each adapter's real signatures) and mypy (each module's
``Protocol``-typed reference) hold it there:

- ``config.run_shaper``: ``RunShaper``, the run's ``Shaper`` from the trainer's settings;
- ``check.check_launch``: ``CheckLaunch``, the launch preflight (a ``Report``);
- ``data.prepare_data``: ``PrepareData``, the dataset rows (``{split: {"path", "rows"}}``);
- ``reward.rewards``: ``Rewards``, the reward entry, the trainer's outputs scored as its reward path scores them;
- ``advantages.token_advantages`` (TRL: ``trainer.``): ``TokenAdvantagesFn``, the estimator entry, per-token
  advantages as the trainer's advantage path computes them.

An implementation may add keyword-only parameters with defaults after the contract's (a trainer's own extras, such
as VERL's multi-output layout). A keyword renamed in this unification still works for a release, with a
``DeprecationWarning`` naming the new one (``renamed``; CHANGELOG.md lists each).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..splits import PLANNER_R1_VAL_SIZE
from .queries import Written

if TYPE_CHECKING:
    import numpy as np
    import torch

    from ..scores import SampleScore, TokenAdvantages
    from .preflight import Report
    from .shaper import Shaper


class RunShaper(Protocol):
    def __call__(self, settings: Any, run_steps: int | None = None) -> Shaper:
        """The run's ``Shaper`` (``Shaper.shared``: one per process for equal settings) from the trainer's planshape
        settings (a mapping, an OmegaConf node, YAML/JSON text or a file); ``run_steps``: the optimizer steps the
        trainer will run, where it knows them (``total_steps`` is filled from it or must equal it)."""


class CheckLaunch(Protocol):
    def __call__(self, launch: Sequence[str] = (), config: Any = None, run_steps: int | None = None) -> Report:
        """Everything the launch would refuse at start-up, checked now, and what will run. ``launch``: the trainer's
        own arguments (VERL's Hydra overrides, OpenRLHF's ``train_ppo_ray`` flags; TRL: none); ``config``: the
        planshape settings where the launch does not carry them; ``run_steps``: the run's optimizer steps where the
        launch does not say (TRL's ``max_steps``). Raises ``UnsupportedRelease`` for a trainer out of range."""


class PrepareData(Protocol):
    def __call__(self, shaper: Shaper, queries: Sequence[str | Path], out: str | Path,
                 val_out: str | Path | None = None, val_size: int = PLANNER_R1_VAL_SIZE, seed: int = 0,
                 limit: int | None = None) -> dict[str, Written]:
        """The dataset rows of the query files (the first ``limit`` queries when given) at ``out``; with
        ``val_out`` (VERL: always, ``out/val.parquet`` by default), Planner-R1's re-split first, its ``val_size``
        validation rows there."""


class Rewards(Protocol):
    def __call__(self, shaper: Shaper, outputs: Sequence[Any], labels: Sequence[Any], step: int) -> list[SampleScore]:
        """The reward entry: each output (as the trainer holds it: VERL's decoded response, a TRL completion,
        OpenRLHF's response text) scored with its query label at ``step``, as the trainer's reward path scores it;
        what the trainer's own entry point returns is built from these scores."""


class TokenAdvantagesFn(Protocol):
    def __call__(self, shaper: Shaper, scores: Any, mask: torch.Tensor, index: Sequence[Any] | np.ndarray, step: int,
                 success: Any = None, anchors: Sequence[Sequence[Any]] | None = None,
                 step_rewards: Sequence[Sequence[float]] | None = None) -> TokenAdvantages:
        """The estimator entry: per-token advantages of a batch as the trainer's advantage path computes them
        (``scores`` (B,), ``mask`` (B, L) assistant tokens, ``index`` (B,) group ids, ``success`` (B,) or read from
        the scores, ``anchors`` (B,) GiGPO's states per turn, ``step_rewards`` (B,) each turn's reward besides the
        outcome), with what the trainer does on top (OpenRLHF's ``--reward.clip_range``)."""


CONTRACT: dict[str, tuple[str, type]] = {
    "run_shaper": ("config", RunShaper),
    "check_launch": ("check", CheckLaunch),
    "prepare_data": ("data", PrepareData),
    "rewards": ("reward", Rewards),
    "token_advantages": ("advantages|trainer", TokenAdvantagesFn),
}
"""Each shared name: the adapter module that defines it (``a|b``: either), and its signature."""

F = TypeVar("F", bound=Callable[..., Any])


def renamed(**old_to_new: str) -> Callable[[F], F]:
    """Keep a keyword a function was called with before it took its contract signature: a call with the old name
    warns (``DeprecationWarning``) and passes the value under the new one. ``inspect.signature`` shows the new
    signature only (the contract's)."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{fn.__qualname__}() got both {old!r} (its old name) and {new!r}")
                    warnings.warn(f"{fn.__module__}.{fn.__qualname__}({old}=...) is now {new}=... (the adapter "
                                  "contract); the old name goes in a later release", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]  # same call signature, by functools.wraps

    return decorate
