"""Turn spans from a trainer's assistant-token mask, and the broadcast of per-turn values back onto tokens.

A turn is a maximal run of 1s in the mask (VERL ``response_mask``, TRL ``completion_mask * tool_mask``,
OpenRLHF ``action_mask``); the 0s between runs are tool observations, trailing 0s are padding. Everything
runs in torch on the mask's own device, in two passes over the (B, L) tensor each way; only the small
per-turn arrays cross to numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

try:
    import torch
except ImportError as exc:  # torch is an extra: the trainer brings its own build
    raise ImportError("planshape.shaping.turns needs torch; install the build your trainer uses "
                      "(e.g. pip install torch), or planshape[torch]") from exc


@dataclass(frozen=True)
class TurnSpans:
    """``turns[i]`` = T_i; per turn, trajectory-major: its ``row``, first column ``starts``, ``ends`` (exclusive)."""

    turns: torch.Tensor  # (B,) int64
    rows: torch.Tensor  # (sum T,) int64
    starts: torch.Tensor  # (sum T,) int64
    ends: torch.Tensor  # (sum T,) int64

    @property
    def lengths(self) -> torch.Tensor:
        return self.ends - self.starts

    def numpy(self) -> tuple[np.ndarray, np.ndarray]:
        return self.turns.cpu().numpy(), self.lengths.cpu().numpy()


def _boundaries(flat: torch.Tensor) -> torch.Tensor:
    """Flat positions p in [0, n] where ``flat[p] != flat[p-1]`` (with False outside), found cheaply.

    The changes are few, so instead of ``nonzero`` over all n elements, the bool buffer is read as int64
    words (8 flags each), ``nonzero`` runs over n/8 words, and only the hit words are expanded.
    """
    n = flat.numel()
    buf = torch.zeros((n + 8) // 8 * 8, dtype=torch.bool, device=flat.device)
    torch.ne(flat[1:], flat[:-1], out=buf[1:n])
    buf[0] = flat[0]
    buf[n] = flat[n - 1]
    words = buf.view(torch.int64).nonzero().squeeze(1)
    hits = buf.view(-1, 8)[words].nonzero()
    return words[hits[:, 0]] * 8 + hits[:, 1]


def turn_spans(mask: torch.Tensor) -> TurnSpans:
    """Turn counts and spans of every row of a (B, L) 0/1 mask, without a Python loop."""
    if mask.dim() != 2 or mask.numel() == 0:
        raise ValueError(f"expected a non-empty (batch, tokens) mask, got shape {tuple(mask.shape)}")
    batch, width = mask.shape
    flat = mask.reshape(-1)
    flat = flat.bool()
    n = flat.numel()
    rows_edge = torch.arange(0, n + 1, width, device=flat.device)  # runs never cross a row boundary
    points = torch.unique(torch.cat([_boundaries(flat), rows_edge]))
    at_row_edge = points % width == 0
    prev = torch.where(points > 0, flat[(points - 1).clamp(min=0)], False)
    cur = torch.where(points < n, flat[points.clamp(max=n - 1)], False)
    starts = points[cur & (at_row_edge | ~prev)]
    ends = points[prev & (at_row_edge | ~cur)]
    rows = torch.div(starts, width, rounding_mode="floor")
    turns = torch.bincount(rows, minlength=batch)
    return TurnSpans(turns, rows, starts - rows * width, ends - rows * width)


def broadcast(per_turn: torch.Tensor | np.ndarray, mask: torch.Tensor, spans: TurnSpans | None = None,
              dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A (B, L) tensor holding each turn's value on exactly that turn's tokens, and exactly 0 elsewhere.

    On the CPU the row is cut into segments (gaps hold 0, turns their value) and written in one
    ``numpy.repeat``; on an accelerator each turn writes +v at its first token and −v just past its last,
    and a cumulative sum along the row holds v inside the turn and returns to exactly 0 after it.
    """
    spans = spans if spans is not None else turn_spans(mask)
    if len(per_turn) != spans.starts.shape[0]:
        raise ValueError(f"{len(per_turn)} per-turn values for {spans.starts.shape[0]} turns")
    if mask.device.type == "cpu":
        return _broadcast_segments(per_turn, mask, spans, dtype)
    return _broadcast_cumsum(per_turn, mask, spans, dtype)


def _broadcast_segments(per_turn, mask: torch.Tensor, spans: TurnSpans, dtype: torch.dtype) -> torch.Tensor:
    batch, width = mask.shape
    values = torch.as_tensor(per_turn).detach().cpu().to(dtype).numpy()
    base = spans.rows.numpy() * width
    starts, ends = base + spans.starts.numpy(), base + spans.ends.numpy()
    points = np.unique(np.concatenate([np.arange(0, batch * width + 1, width), starts, ends]))
    segment_values = np.zeros(len(points) - 1, dtype=values.dtype)
    segment_values[np.searchsorted(points, starts)] = values
    out = np.repeat(segment_values, np.diff(points)).reshape(batch, width)
    return torch.from_numpy(out)


def _broadcast_cumsum(per_turn, mask: torch.Tensor, spans: TurnSpans, dtype: torch.dtype) -> torch.Tensor:
    values = torch.as_tensor(per_turn, dtype=dtype, device=mask.device)
    width = mask.shape[1]
    out = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    flat = out.view(-1)
    flat[spans.rows * width + spans.starts] = values
    inside = spans.ends < width
    flat[(spans.rows * width + spans.ends)[inside]] = -values[inside]
    return out.cumsum_(dim=1)
