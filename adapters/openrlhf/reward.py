"""The reward function OpenRLHF calls from ``--reward.remote_url FILE.py``.

OpenRLHF calls ``reward_func(queries, prompts, labels)`` once per sample (lists of length 1) in a thread of a
vLLM rollout actor and needs a dict back: an exception or any other value becomes a ``None`` reward that crashes
the run much later. So this never raises, and ``extra_logs`` always carries the same keys (``Shaper.carried``:
every name of ``shaper.metric_names`` and the six components): OpenRLHF concatenates the per-sample info dicts key
by key, and a key missing from one sample breaks the replay buffer's split.

The rollout actor does not know the training step, so the reward is weighed at ``step`` 0 (the first stage).
With the setup hook installed (``advantages``), the trainer weighs every sample's carried components again at
its own step before any advantage is computed (each plan is checked once, here); a staged schedule without the
hook is refused when the actor loads this file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch
from planshape.shaping.facade import SampleScore, Shaper, response_text

from .config import rollout_shaper
from .version import check_version

check_version()

log = logging.getLogger(__name__)

ROLLOUT_STEP = 0
"""The step the rollout side weighs at; the setup hook weighs every sample again at the trainer's step."""

RewardFunc = Callable[..., dict[str, Any]]


def rewards(shaper: Shaper, outputs: Sequence[Any], labels: Sequence[Any], step: int) -> list[SampleScore]:
    """The reward entry (the adapter contract): each response text scored with its label, one at a time as
    OpenRLHF's actors call; a label that is not a query scores 0 under ``error`` (logged), never an exception that
    OpenRLHF would turn into a ``None`` reward."""
    out = []
    for text, label in zip(outputs, labels, strict=True):
        try:
            out.append(shaper.score(text, label, step))
        except Exception as exc:  # noqa: BLE001 - a bad label must not become a None reward inside OpenRLHF
            log.warning("planshape could not score a sample (%s: %s); it gets reward 0", type(exc).__name__, exc)
            out.append(shaper.unscored(step, reason=f"{type(exc).__name__}: {exc}"[:300]))
    return out


def reward_dict(shaper: Shaper, scored: Sequence[SampleScore]) -> dict[str, Any]:
    """OpenRLHF's reward dict of samples: ``rewards``, ``scores`` (1.0 when the plan succeeds, for dynamic
    filtering) and ``extra_logs`` (``Shaper.carried``, the same keys always: floats for the one sample OpenRLHF
    passes per call, one tensor per key for more)."""
    carried = [shaper.carried(s) for s in scored]
    logs = carried[0] if len(carried) == 1 else {n: torch.tensor([row[n] for row in carried])
                                                 for n in shaper.carried_names}
    return {"rewards": torch.tensor([float(s.reward) for s in scored]),
            "scores": torch.tensor([float(s.success) for s in scored]), "extra_logs": logs}


def make_reward_func(config: str) -> RewardFunc:
    """A ``reward_func`` for the planshape config at ``config`` (a file path or JSON text), validated now."""
    shaper = rollout_shaper(config)

    def reward_func(queries: Sequence[Any], prompts: Sequence[Any], labels: Sequence[Any]) -> dict[str, Any]:
        """OpenRLHF's reward-function protocol: it passes one sample per call; more are scored row by row."""
        if not len(queries) == len(prompts) == len(labels):
            raise ValueError(f"reward_func got {len(queries)} queries, {len(prompts)} prompts and {len(labels)} "
                             "labels: OpenRLHF passes one of each per sample")
        texts = [response_text(str(q), str(p)) for q, p in zip(queries, prompts, strict=True)]
        return reward_dict(shaper, rewards(shaper, texts, labels, ROLLOUT_STEP))

    return reward_func


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import Rewards

    _contract: Rewards = rewards
