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
from typing import Any

import torch
from planshape.shaping.facade import SampleScore, Shaper, response_text

from .config import rollout_shaper
from .version import check_version

check_version()

log = logging.getLogger(__name__)

ROLLOUT_STEP = 0
"""The step the rollout side weighs at; the setup hook weighs every sample again at the trainer's step."""

RewardFunc = Callable[..., dict[str, Any]]


def scored_sample(shaper: Shaper, query: Any, prompt: Any, label: Any, step: int = ROLLOUT_STEP) -> SampleScore:
    """One sample's score; a label that is not a query scores 0 under the ``error`` category (logged)."""
    try:
        return shaper.score(response_text(str(query), str(prompt)), label, step)
    except Exception as exc:  # noqa: BLE001 - a bad label must not become a None reward inside OpenRLHF
        log.warning("planshape could not score a sample (%s: %s); it gets reward 0", type(exc).__name__, exc)
        return shaper.unscored(step, reason=f"{type(exc).__name__}: {exc}"[:300])


def reward_dict(shaper: Shaper, query: Any, prompt: Any, label: Any, step: int = ROLLOUT_STEP) -> dict[str, Any]:
    """OpenRLHF's reward dict for one sample: ``rewards``, ``scores`` (1.0 when the plan succeeds, for dynamic
    filtering) and ``extra_logs`` (``Shaper.carried``, as floats)."""
    scored = scored_sample(shaper, query, prompt, label, step)
    return {"rewards": torch.tensor([float(scored.reward)]), "scores": torch.tensor([float(scored.success)]),
            "extra_logs": shaper.carried(scored)}


def make_reward_func(config: str) -> RewardFunc:
    """A ``reward_func`` for the planshape config at ``config`` (a file path or JSON text), validated now."""
    shaper = rollout_shaper(config)

    def reward_func(queries: Sequence[Any], prompts: Sequence[Any], labels: Sequence[Any]) -> dict[str, Any]:
        """OpenRLHF's reward-function protocol: it passes one sample per call; more are scored row by row."""
        if not len(queries) == len(prompts) == len(labels):
            raise ValueError(f"reward_func got {len(queries)} queries, {len(prompts)} prompts and {len(labels)} "
                             "labels: OpenRLHF passes one of each per sample")
        if len(queries) == 1:
            return reward_dict(shaper, queries[0], prompts[0], labels[0])
        scored = [scored_sample(shaper, q, p, lb) for q, p, lb in zip(queries, prompts, labels, strict=True)]
        carried = [shaper.carried(s) for s in scored]
        return {"rewards": torch.tensor([float(s.reward) for s in scored]),
                "scores": torch.tensor([float(s.success) for s in scored]),
                "extra_logs": {n: torch.tensor([row[n] for row in carried]) for n in shaper.carried_names}}

    return reward_func
