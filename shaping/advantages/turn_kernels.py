"""Compiled CPU kernels (numba) for turn spans and their broadcast onto tokens.

Each is one pass, over the mask or over the output, with no numpy call per turn: the cost is the tokens plus a
few instructions per turn boundary, so PlanPO costs about the same at 1 turn per row as at 500
(``benchmarks/bench_advantages.py``). ``scan`` reads a row 64 tokens at a time into a bit word, where every
boundary of the block is a set bit of ``word ^ (word << 1)``, each found with one instruction (cttz); ``fill``
writes each turn and each gap between turns as whole 32-entry blocks, vector stores with no scalar tail.

The kernels take the mask's raw bits (``turns.py`` views any dtype as unsigned ints of its width) and ``keep``,
the bits that make a value nonzero: all of them for ints and bools, all but the sign for floats (-0.0 is zero,
NaN is not, as in ``bool``). Compiled on first use and cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

BLOCK = 32  # ``fill`` writes whole blocks of this many entries: its output needs this much room past the end

_jit = numba.njit(cache=True, nogil=True, boundscheck=False)


@intrinsic
def _trailing_zeros(typingctx, word):  # pragma: no cover - compiled
    """The position of the lowest set bit of a nonzero uint64 (64 for 0): one instruction (LLVM's cttz)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@_jit
def _word(tokens, keep):  # pragma: no cover - compiled
    """Bit j set where ``tokens[j]`` (at most 64 of them) is nonzero; a loop the compiler vectorises."""
    word = np.uint64(0)
    for j in range(tokens.shape[0]):
        word |= np.uint64((tokens[j] & keep) != 0) << np.uint64(j)
    return word


@numba.njit(boundscheck=False, inline="always")
def _few(bounds, k, at, change):  # pragma: no cover - compiled
    """The boundaries of a block that rarely holds two (sparse rows): the first written whether or not there
    is one, k moving only if there is (a block rarely holds one either: no branch to mispredict), the rest by the
    loop, which is rarely entered."""
    one = np.uint64(1)
    bounds[k] = at + _trailing_zeros(change)
    k += change != 0
    change &= change - one
    while change != 0:
        bounds[k] = at + _trailing_zeros(change)
        k += 1
        change &= change - one
    return k


@numba.njit(boundscheck=False, inline="always")
def _many(bounds, k, at, change):  # pragma: no cover - compiled
    """The boundaries of a block of a dense row (turns and gaps of a few dozen tokens): how many a block holds
    varies from 0 to 4, so the first four are written whether or not they exist, k moving only past those that
    do, and only a fifth and more take the loop: no branch on the count to mispredict."""
    one = np.uint64(1)
    for _ in range(4):
        bounds[k] = at + _trailing_zeros(change)
        k += change != 0
        change &= change - one
    while change != 0:
        bounds[k] = at + _trailing_zeros(change)
        k += 1
        change &= change - one
    return k


@_jit
def scan(bits, keep, turns, bounds):  # pragma: no cover - compiled
    """Fill ``turns`` (per row) and ``bounds`` = [0, start_1, end_1, ..., end_k, B * L] as positions in the flat
    mask; return how many entries of ``bounds`` hold them, or -1 when it is too short to hold them. A row is
    read with ``_many`` when the row before it held at least one boundary per block, else with ``_few``: rows
    of a batch are alike, and the choice is one well-predicted branch per block."""
    batch, width = bits.shape
    one = np.uint64(1)
    blocks = (width + 63) // 64
    dense = False
    k = 1
    for r in range(batch):
        row = bits[r]
        base = r * width
        first = k
        carry = np.uint64(0)  # the previous token's bit; a row starts after a zero
        for i in range(0, width, 64):
            if k + 66 > bounds.shape[0]:  # room for this block's 64 boundaries, a row end and the last entry
                return -1
            stop = min(i + 64, width)
            word = _word(row[i:stop], keep)
            change = word ^ ((word << one) | carry)
            if stop - i < 64:  # the row's last, partial block: the shift moved its last bit past the row
                change &= (one << np.uint64(stop - i)) - one
            carry = (word >> np.uint64(stop - i - 1)) & one
            k = _many(bounds, k, base + i, change) if dense else _few(bounds, k, base + i, change)
        if carry:  # a turn runs to the row's last token
            bounds[k] = base + width
            k += 1
        turns[r] = (k - first) // 2
        dense = k - first >= blocks
    bounds[0] = 0
    bounds[k] = batch * width
    return k + 1


@numba.njit(boundscheck=False, inline="always")
def _blocks(out, start, end, value):  # pragma: no cover - compiled
    """``value`` on ``out[start:end]`` written as whole ``BLOCK``-entry blocks from ``start`` (unsigned indices
    and a whole number of blocks: the compiler's vector loop, no scalar tail); up to ``BLOCK - 1`` entries past
    ``end`` are written too."""
    stop = start + ((end - start + np.uint64(BLOCK - 1)) & ~np.uint64(BLOCK - 1))
    for j in range(start, stop):
        out[j] = value


@_jit
def fill(values, bounds, out):  # pragma: no cover - compiled
    """Write ``values[t]`` on turn t's tokens and 0 on every other token of the flat ``out``, which has ``BLOCK``
    entries of room past ``bounds[-1]``. Segments (a gap, then a turn, ...) are written in order, each in whole
    blocks: what a block writes past its segment's end lies in the next segment, which is written after it."""
    if out.shape[0] < bounds[bounds.shape[0] - 1] + BLOCK - 1:
        raise ValueError("fill: out needs BLOCK - 1 entries of room past its last bound")
    zero = out.dtype.type(0)
    position = np.uint64(0)
    for t in range(values.shape[0]):
        start = np.uint64(bounds[2 * t + 1])
        end = np.uint64(bounds[2 * t + 2])
        _blocks(out, position, start, zero)
        _blocks(out, start, end, values[t])
        position = end
    _blocks(out, position, np.uint64(bounds[bounds.shape[0] - 1]), zero)
