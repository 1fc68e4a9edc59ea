"""A batch's assistant turns, for an adapter that reads something out of them: how many each row holds
(``turn_counts``), each row's turns decoded under the assistant mask (``turn_texts``) and their TravelPlanner anchor
states (``tool_call_anchors``, GiGPO). torch is imported only by the call that takes it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch


def tool_call_anchors(turn_texts: Sequence[Any]) -> list[str]:
    """The TravelPlanner anchor of each turn of one trajectory from its assistant turns' text: the tool calls and
    arguments made before the turn (``advantages/anchors.py``); never raises on model text."""
    from ..advantages.anchors import tool_call_anchors as anchors

    return anchors(turn_texts)


def turn_texts(mask: torch.Tensor, token_ids: torch.Tensor, decode: Any) -> list[list[str]]:
    """Each row's assistant turns as text: ``decode`` (a tokenizer's ``decode``) of the ``token_ids`` under each run
    of 1s of the (B, L) ``mask`` (aligned with it), in order (``tool_call_anchors`` reads them)."""
    from ..advantages.turns import turn_spans

    spans = turn_spans(mask)
    ids = token_ids.tolist()
    texts: list[list[str]] = [[] for _ in range(mask.shape[0])]
    for row, start, end in zip(spans.rows.tolist(), spans.starts.tolist(), spans.ends.tolist(), strict=True):
        texts[row].append(decode(ids[row][start:end]))
    return texts



def turn_counts(mask: torch.Tensor) -> list[int]:
    """The assistant turns of each row of a (B, L) assistant mask (its runs of 1s): how many per-turn values
    (anchor states, per-turn rewards) a row holds."""
    from ..advantages.turns import turn_spans

    return turn_spans(mask).numpy()[0].tolist()
