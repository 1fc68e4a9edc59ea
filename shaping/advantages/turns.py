"""Turn spans from a trainer's assistant-token mask, and the broadcast of per-turn values back onto tokens.

A turn is a maximal run of 1s in the mask (VERL ``response_mask``, TRL ``completion_mask * tool_mask``,
OpenRLHF ``action_mask``); the 0s between runs are tool observations, trailing 0s are padding. On an
accelerator everything runs in torch on the mask's device and only the small per-turn arrays cross to numpy;
on the CPU two compiled kernels (``turn_kernels.py``, numba) read the mask once and write the output once, at
a cost that does not grow with the number of turns. Without numba the CPU takes the torch path, slower there.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

try:
    import torch
except ImportError as exc:  # torch is an extra: the trainer brings its own build
    raise ImportError("planshape.shaping.advantages.turns needs torch; install the build your trainer uses "
                      "(e.g. pip install torch), or planshape[torch]") from exc

_kernels: ModuleType | None
try:
    from . import turn_kernels as _kernels
except ImportError as exc:  # numba is a dependency, but an environment can pin one that rejects its numpy
    _kernels = None
    warnings.warn(f"planshape: numba unavailable ({exc}); turn spans on the CPU use torch, several times slower",
                  RuntimeWarning, stacklevel=2)


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


def _numba() -> ModuleType:
    """The compiled kernels; only the paths taken when they imported call this."""
    if _kernels is None:
        raise RuntimeError("planshape's numba turn kernels did not import (see the warning at import)")
    return _kernels


class _FlatSpans(TurnSpans):
    """CPU spans held as the turn counts and flat bounds, all the estimator and ``broadcast`` read; rows, starts
    and ends are built only when asked for."""

    flat: np.ndarray
    width: int

    def __init__(self, turns: np.ndarray, flat: np.ndarray, width: int) -> None:
        object.__setattr__(self, "turns", torch.from_numpy(turns))
        object.__setattr__(self, "flat", flat)
        object.__setattr__(self, "width", width)

    @functools.cached_property
    def rows(self) -> torch.Tensor:
        return torch.from_numpy(np.repeat(np.arange(len(self.turns)), self.turns.numpy()))

    @functools.cached_property
    def starts(self) -> torch.Tensor:
        return torch.from_numpy(self.flat[1:-1:2]) - self.rows * self.width

    @functools.cached_property
    def ends(self) -> torch.Tensor:
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
    if mask.device.type == "cpu" and _kernels is not None:
        return _FlatSpans(*_spans_cpu(mask), mask.shape[1])
    return _spans_torch(mask)


def final_turns(mask: torch.Tensor) -> list[tuple[int, int] | None]:
    """The ``[start, end)`` columns of each row's final assistant turn (the last run of 1s; None for a row with
    no turn): where a trainer decodes the answer from."""
    spans = turn_spans(mask)
    turns = spans.turns.tolist()
    last = np.cumsum(turns) - 1
    starts, ends = spans.starts.tolist(), spans.ends.tolist()
    return [(starts[k], ends[k]) if t else None for t, k in zip(turns, last.tolist(), strict=True)]


def _spans_torch(mask: torch.Tensor) -> TurnSpans:
    """``turn_spans`` in torch, on the mask's device."""
    batch, width = mask.shape
    points = _changes(mask if mask.dtype == torch.bool else mask.bool())
    bounds = points.view(-1, 2)  # (start, end) per turn, trajectory-major
    rows = torch.div(bounds[:, 0], width + 1, rounding_mode="floor")
    base = rows * (width + 1)
    turns = torch.bincount(rows, minlength=batch)
    return TurnSpans(turns, rows, bounds[:, 0] - base, bounds[:, 1] - base)


def _as_bits(mask: torch.Tensor) -> tuple[np.ndarray, np.unsignedinteger]:
    """The mask's raw bits as (B, L) unsigned ints of its width, and the bits that make a value nonzero."""
    if mask.is_complex():
        mask = mask.bool()
    size = mask.element_size()
    same_size = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    bits = mask.detach().contiguous().view(same_size).numpy().view(f"u{size}")
    keep = (1 << (8 * size - 1)) - 1 if mask.is_floating_point() else (1 << (8 * size)) - 1
    return bits, bits.dtype.type(keep)


def _spans_cpu(mask: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """(turns per row, flat bounds) from the compiled scan. ``bounds`` is sized for up to one boundary per 16
    tokens; a mask with more (the alternating worst case) is scanned again with room for every token."""
    bits, keep = _as_bits(mask)
    batch, width = bits.shape
    turns = np.empty(batch, dtype=np.int64)
    for room in (batch * width // 16 + 2 * batch, batch * (width + 1)):
        bounds = np.empty(room + 68, dtype=np.int64)  # + the kernel's margin (see ``scan``)
        used = _numba().scan(bits, keep, turns, bounds)
        if used >= 0:
            return turns, bounds[:used]  # a view: copying 2 boundaries a turn costs more than the room it frees
    raise AssertionError("unreachable: the second size holds a boundary at every token")


def broadcast(per_turn: torch.Tensor | np.ndarray, mask: torch.Tensor, spans: TurnSpans | None = None,
              dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A (B, L) tensor holding each turn's value on exactly that turn's tokens, and exactly 0 elsewhere.

    On the CPU a compiled loop writes the row's segments in order (gaps 0, turns their value); on an
    accelerator each turn writes +v at its first token and −v just past its last, and a cumulative sum along
    the row holds v inside the turn and returns to exactly 0 after it.
    """
    spans = spans if spans is not None else turn_spans(mask)
    count = int(spans.turns.sum())  # not ``starts``: CPU spans build rows and starts only when asked
    if len(per_turn) != count:
        raise ValueError(f"{len(per_turn)} per-turn values for {count} turns")
    if mask.device.type == "cpu" and _kernels is not None:
        return _broadcast_cpu(per_turn, mask, spans, dtype)
    return _broadcast_cumsum(per_turn, mask, spans, dtype)


def _broadcast_cpu(per_turn, mask: torch.Tensor, spans: TurnSpans, dtype: torch.dtype) -> torch.Tensor:
    """Turns and the gaps between them, in order, are consecutive segments of the flat (B * L) output: the
    compiled ``fill`` writes them in one pass."""
    batch, width = mask.shape
    bounds = spans.flat
    if bounds is None or bounds[-1] != batch * width:  # spans built elsewhere (torch, or by hand)
        base = spans.rows.cpu().numpy() * width
        bounds = np.empty(2 * len(base) + 2, dtype=np.int64)
        bounds[0], bounds[-1] = 0, batch * width
        bounds[1:-1:2] = base + spans.starts.cpu().numpy()
        bounds[2:-1:2] = base + spans.ends.cpu().numpy()
    written = dtype if dtype in (torch.float16, torch.float32, torch.float64) else torch.float32
    values = torch.as_tensor(per_turn).detach().cpu().to(written).numpy()
    kernels = _numba()
    out = np.empty(batch * width + kernels.BLOCK, dtype=values.dtype)  # numpy's allocator: huge pages, fewer
    kernels.fill(values, bounds, out)  # faults than torch's; ``fill`` writes whole blocks, up to BLOCK past the end
    result = torch.from_numpy(out[:batch * width]).view(batch, width)
    return result if written == dtype else result.to(dtype)


def _broadcast_cumsum(per_turn, mask: torch.Tensor, spans: TurnSpans, dtype: torch.dtype) -> torch.Tensor:
    values = torch.as_tensor(per_turn, dtype=dtype, device=mask.device)
    width = mask.shape[1]
    out = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    flat = out.view(-1)
    flat[spans.rows * width + spans.starts] = values
    inside = spans.ends < width
    flat[(spans.rows * width + spans.ends)[inside]] = -values[inside]
    return out.cumsum_(dim=1)
