"""A minimal adapter for a plain-Python "trainer": everything it needs comes from the facade.

It is what a VERL, TRL or OpenRLHF adapter does, without the trainer: build one ``Shaper`` from the run's
settings, score each group's outputs at the current step, lay the turns out as a (B, L) assistant mask with
tool tokens and padding between them (as a trainer's batch has), and ask for per-token advantages and the
statistics to log. ``tests/shaping/test_facade.py`` runs it and checks that it imports nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch
from planshape.shaping.facade import Shaper

TOOL_TOKENS = 2  # observation tokens between two assistant turns
PAD = 3  # trailing padding of every row


def mask_of(turn_tokens: Sequence[Sequence[int]]) -> torch.Tensor:
    """The (B, L) assistant mask of rows whose turns have the given lengths."""
    rows = []
    for lengths in turn_tokens:
        row: list[int] = []
        for i, n in enumerate(lengths):
            row += [0] * (TOOL_TOKENS if i else 0) + [1] * n
        rows.append(row)
    width = max(len(r) for r in rows) + PAD
    return torch.tensor([r + [0] * (width - len(r)) for r in rows])


def train(settings: Mapping[str, Any], rollouts: Sequence[Mapping[str, Any]], steps: int) -> list[dict[str, Any]]:
    """Score and estimate the same rollouts at steps 0..steps-1; one log record per step."""
    shaper = Shaper.from_mapping(settings)
    logs = []
    for step in range(steps):
        scored = shaper.score_batch([r["text"] for r in rollouts], [r["query"] for r in rollouts], step)
        mask = mask_of([r["turn_tokens"] for r in rollouts])
        adv = shaper.advantages(torch.tensor([s.reward for s in scored]), mask, [r["group"] for r in rollouts], step)
        metrics = {name: sum(s.metrics()[name] for s in scored) / len(scored) for name in shaper.metric_names}
        logs.append({"step": step, "stage": scored[0].stage, "metrics": metrics, "stats": adv.stats,
                     "advantages": adv.tokens, "mask": mask, "scores": scored})
    return logs
