"""Turn spans from a trainer's assistant-token mask, and the broadcast of per-turn values back onto tokens.

A turn is a maximal run of 1s in the mask (VERL ``response_mask``, TRL ``completion_mask * tool_mask``,
OpenRLHF ``action_mask``); the 0s between runs are tool observations, trailing 0s are padding. On an
accelerator everything runs in torch on the mask's device and only the small per-turn arrays cross to numpy;
on the CPU numpy does the (B, L) passes (its comparisons and ``nonzero`` are several times faster than
torch's there). Each way is one pass over the mask and one over the output, whatever the number of turns.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

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
    # CPU spans only: [0, start_1, end_1, start_2, ..., end_k, B * L], every bound as a position in the flat
    # (B * L) mask, i.e. the cuts between the segments ``broadcast`` writes; kept so it need not rebuild them.
    flat: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def lengths(self) -> torch.Tensor:
        return self.ends - self.starts

    def numpy(self) -> tuple[np.ndarray, np.ndarray]:
        if self.flat is not None:
            return self.turns.numpy(), self.flat[2:-1:2] - self.flat[1:-1:2]
        return self.turns.cpu().numpy(), self.lengths.cpu().numpy()


class _FlatSpans(TurnSpans):
    """CPU spans held as the turn counts and flat bounds, all the estimator and ``broadcast`` read; rows, starts
    and ends are built only when asked for."""

    def __init__(self, turns: np.ndarray, flat: np.ndarray, width: int) -> None:
        object.__setattr__(self, "turns", torch.from_numpy(turns))
        object.__setattr__(self, "flat", flat)
        object.__setattr__(self, "width", width)

    @functools.cached_property
    def rows(self) -> torch.Tensor:  # type: ignore[override]
        return torch.from_numpy(np.repeat(np.arange(len(self.turns)), self.turns.numpy()))

    @functools.cached_property
    def starts(self) -> torch.Tensor:  # type: ignore[override]
        return torch.from_numpy(self.flat[1:-1:2]) - self.rows * self.width

    @functools.cached_property
    def ends(self) -> torch.Tensor:  # type: ignore[override]
        return torch.from_numpy(self.flat[2:-1:2]) - self.rows * self.width


def _changes(mask: torch.Tensor) -> torch.Tensor:
    """Sorted positions q = row * (L + 1) + p, p in [0, L], where ``mask[row, p] != mask[row, p - 1]`` (False
    outside the row), found cheaply.

    Each row gets one extra slot, so no run crosses a row and, within a row, changes alternate start, end,
    start, end: the spans are read off without a sort or a merge. The changes are few, so instead of
    ``nonzero`` over every element the bool buffer is read as int64 words (8 flags each), ``nonzero`` runs
    over the words, and only the hit words are expanded.
    """
    batch, width = mask.shape
    n = batch * (width + 1)
    buf = torch.empty((n + 7) // 8 * 8, dtype=torch.bool, device=mask.device)
    buf[n:] = False
    changes = buf[:n].view(batch, width + 1)
    torch.ne(mask[:, 1:], mask[:, :-1], out=changes[:, 1:width])
    changes[:, 0] = mask[:, 0]
    changes[:, width] = mask[:, width - 1]
    words = buf.view(torch.int64).nonzero().squeeze(1)
    hits = buf.view(-1, 8)[words].nonzero()
    return words[hits[:, 0]] * 8 + hits[:, 1]


def turn_spans(mask: torch.Tensor) -> TurnSpans:
    """Turn counts and spans of every row of a (B, L) mask (nonzero = assistant token), without a Python loop."""
    if mask.dim() != 2 or mask.numel() == 0:
        raise ValueError(f"expected a non-empty (batch, tokens) mask, got shape {tuple(mask.shape)}")
    if mask.device.type == "cpu":
        return _FlatSpans(*_spans_cpu(mask), mask.shape[1])
    return _spans_torch(mask)


def _spans_torch(mask: torch.Tensor) -> TurnSpans:
    """``turn_spans`` in torch, on the mask's device."""
    batch, width = mask.shape
    points = _changes(mask if mask.dtype == torch.bool else mask.bool())
    bounds = points.view(-1, 2)  # (start, end) per turn, trajectory-major
    rows = torch.div(bounds[:, 0], width + 1, rounding_mode="floor")
    base = rows * (width + 1)
    turns = torch.bincount(rows, minlength=batch)
    return TurnSpans(turns, rows, bounds[:, 0] - base, bounds[:, 1] - base)


def _row_changes(values: np.ndarray) -> np.ndarray:
    """Sorted q = row * (L + 1) + p, p in [0, L], where ``values[row, p] != values[row, p - 1]`` (0 outside).

    Single-threaded on purpose: searching blocks of rows in Python threads (numpy's passes release the GIL)
    measured slower end to end with 2 torch threads on a 2-core machine, next to torch's own workers."""
    batch, width = values.shape
    n = batch * (width + 1)
    buf = np.empty((n + 63) // 64 * 64, dtype=bool)  # whole 64-flag words at both levels below
    buf[n:] = False
    changes = buf[:n].reshape(batch, width + 1)
    np.not_equal(values[:, 1:], values[:, :-1], out=changes[:, 1:width])
    np.not_equal(values[:, 0], 0, out=changes[:, 0])
    np.not_equal(values[:, width - 1], 0, out=changes[:, width])
    # As in ``_changes``: the 8-flag words holding a change, then only those words' flags; the words that hold
    # one are found the same way, one level up (8 words to a flag word). Where more than half hold one
    # (many short turns), numpy's own nonzero over every entry of that level is cheaper.
    words = buf.view(np.uint64)
    hit = _set_entries(words != 0)
    if 2 * len(hit) > len(words):
        return np.flatnonzero(buf)
    return _expand(hit, words[hit])


def _set_entries(flags: np.ndarray) -> np.ndarray:
    """``np.flatnonzero`` of a bool array whose length is a multiple of 8, skipping all-False 8-flag words."""
    words = flags.view(np.uint64)
    hit = np.flatnonzero(words != 0)
    if 2 * len(hit) > len(words):
        return np.flatnonzero(flags)
    return _expand(hit, words[hit])


def _expand(hit: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The positions of the set flags of the 8-flag ``words`` found at word positions ``hit``."""
    flags = np.flatnonzero(words.view(bool))
    return (hit[flags >> 3] << 3) | (flags & 7)


def _pairs(points: np.ndarray, batch: int, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(turns per row, index of each row's first turn, flat bounds) of sorted changes read as (start, end) pairs:
    each row's share is found by B binary searches, not by dividing every point; a point's flat position is
    q - row."""
    row_first = np.searchsorted(points[0::2], np.arange(batch + 1) * (width + 1))
    turns = np.diff(row_first)
    flat = np.empty(len(points) + 2, dtype=np.int64)
    flat[0], flat[-1] = 0, batch * width
    np.subtract(points, np.repeat(np.arange(batch), 2 * turns), out=flat[1:-1])
    return turns, row_first, flat


def _spans_cpu(mask: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """(turns, flat bounds) in numpy. The changes of the raw values are taken first (no bool copy of the mask);
    they are the turn boundaries exactly when every one is a zero <-> nonzero step. That holds when, read as
    (start, end) pairs, every end inside a row holds a zero: a nonzero -> nonzero step is either such an end, or
    a start whose preceding end (in its row; a row's first change follows zeros) holds a nonzero. So one lookup
    per turn confirms it; otherwise (a mask holding 1s and 2s, NaN) the mask is converted to bool and the
    changes taken again."""
    try:
        values = mask.detach().numpy()
    except TypeError:  # a dtype numpy lacks (bfloat16)
        values = mask.bool().numpy()
    batch, width = values.shape
    points = _row_changes(values)
    if values.dtype != bool and len(points) % 2 == 0:
        turns, row_first, flat = _pairs(points, batch, width)
        ends = flat[2:-1:2]
        held = np.take(values.reshape(-1), ends, mode="clip") != 0
        # Only a row's last turn can end at the row's end (column L), where there is no value to read: the
        # lookup went to the next row's first token (or was clipped), so what it read there is dropped.
        last = row_first[1:][turns > 0] - 1
        at_row_end = ends[last] == (np.flatnonzero(turns > 0) + 1) * width
        held[last[at_row_end]] = False
        if not held.any():
            return turns, flat
    elif values.dtype == bool:
        return _pairs(points, batch, width)[::2]
    return _pairs(_row_changes(values.astype(bool)), batch, width)[::2]


def broadcast(per_turn: torch.Tensor | np.ndarray, mask: torch.Tensor, spans: TurnSpans | None = None,
              dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A (B, L) tensor holding each turn's value on exactly that turn's tokens, and exactly 0 elsewhere.

    On the CPU the row is cut into segments (gaps hold 0, turns their value) and written in one
    ``numpy.repeat``; on an accelerator each turn writes +v at its first token and −v just past its last,
    and a cumulative sum along the row holds v inside the turn and returns to exactly 0 after it.
    """
    spans = spans if spans is not None else turn_spans(mask)
    count = int(spans.turns.sum())  # not ``starts``: CPU spans build rows and starts only when asked
    if len(per_turn) != count:
        raise ValueError(f"{len(per_turn)} per-turn values for {count} turns")
    if mask.device.type == "cpu":
        return _broadcast_segments(per_turn, mask, spans, dtype)
    return _broadcast_cumsum(per_turn, mask, spans, dtype)


def _broadcast_segments(per_turn, mask: torch.Tensor, spans: TurnSpans, dtype: torch.dtype) -> torch.Tensor:
    """Turns and the gaps between them, in order, are consecutive segments of the flat (B * L) output, so
    one ``numpy.repeat`` of [0, v_1, 0, v_2, ..., v_k, 0] writes it; no sort is needed."""
    batch, width = mask.shape
    values = torch.as_tensor(per_turn).detach().cpu().to(dtype).numpy()
    bounds = spans.flat
    if bounds is None or bounds[-1] != batch * width:  # spans built elsewhere (torch, or by hand)
        base = spans.rows.numpy() * width
        bounds = np.empty(2 * len(values) + 2, dtype=np.int64)
        bounds[0], bounds[-1] = 0, batch * width
        bounds[1:-1:2] = base + spans.starts.numpy()
        bounds[2:-1:2] = base + spans.ends.numpy()
    segment_values = np.zeros(2 * len(values) + 1, dtype=values.dtype)
    segment_values[1::2] = values
    out = np.repeat(segment_values, np.diff(bounds)).reshape(batch, width)
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
