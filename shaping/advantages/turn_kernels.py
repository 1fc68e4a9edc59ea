"""Compiled CPU kernels (numba) for turn spans and their broadcast onto tokens.

Each is one pass, over the mask or over the output, with no numpy call per turn: the cost is the tokens plus a
few instructions per turn boundary, so PlanPO costs about the same at 1 turn per row as at 500
(``benchmarks/bench_advantages.py``). ``scan`` reads a row 64 tokens at a time into a bit word, where every
boundary of the block is a set bit of ``word ^ (word << 1)``.

The kernels take the mask's raw bits (``turns.py`` views any dtype as unsigned ints of its width) and ``keep``,
the bits that make a value nonzero: all of them for ints and bools, all but the sign for floats (-0.0 is zero,
NaN is not, as in ``bool``). Compiled on first use and cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba
import numpy as np

_DE_BRUIJN = 0x03F79D71B4CB0A89  # (2**i * _DE_BRUIJN mod 2**64) >> 58 is distinct for every i in [0, 64)
_BIT_INDEX = np.zeros(64, dtype=np.int64)  # that value -> i: the position of a word's single set bit
for _i in range(64):
    _BIT_INDEX[((_DE_BRUIJN << _i) & 0xFFFF_FFFF_FFFF_FFFF) >> 58] = _i

_jit = numba.njit(cache=True, nogil=True, boundscheck=False)


@_jit
def _word(tokens, keep):  # pragma: no cover - compiled
    """Bit j set where ``tokens[j]`` (at most 64 of them) is nonzero; a loop the compiler vectorises."""
    word = np.uint64(0)
    for j in range(tokens.shape[0]):
        word |= np.uint64((tokens[j] & keep) != 0) << np.uint64(j)
    return word


@_jit
def _lowest(word):  # pragma: no cover - compiled
    """The position of the lowest set bit of a nonzero word (any value for 0)."""
    low = word & (~word + np.uint64(1))
    return _BIT_INDEX[(low * np.uint64(_DE_BRUIJN)) >> np.uint64(58)]


@_jit
def scan(bits, keep, turns, bounds):  # pragma: no cover - compiled
    """Fill ``turns`` (per row) and ``bounds`` = [0, start_1, end_1, ..., end_k, B * L] as positions in the flat
    mask; return how many entries of ``bounds`` hold them, or -1 when it is too short to hold them."""
    batch, width = bits.shape
    one = np.uint64(1)
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
            # The lowest change is written whether or not there is one, and k moves only if there is: a block
            # rarely holds two, and this spares a mispredicted branch per block.
            bounds[k] = base + i + _lowest(change)
            k += change != 0
            change &= change - one
            while change != 0:
                bounds[k] = base + i + _lowest(change)
                k += 1
                change &= change - one
        if carry:  # a turn runs to the row's last token
            bounds[k] = base + width
            k += 1
        turns[r] = (k - first) // 2
    bounds[0] = 0
    bounds[k] = batch * width
    return k + 1


@_jit
def fill(values, bounds, out):  # pragma: no cover - compiled
    """Write ``values[t]`` on turn t's tokens and 0 on every other token of the flat ``out``."""
    position = 0
    for t in range(values.shape[0]):
        start = bounds[2 * t + 1]
        end = bounds[2 * t + 2]
        out[position:start] = 0
        out[start:end] = values[t]
        position = end
    out[position:] = 0
