"""Compiled CPU kernels (numba) for the estimators' per-turn work: the segment normalisation
``(x - mean) / (std + eps)`` within each segment (a group, a turn group, a GiGPO step group), and PlanPO's whole
turn term (A^S and A^E + α·A^S per turn) for its per-index groupings.

numpy needs a dozen passes over the per-turn arrays for a normalisation (two weighted ``bincount``s, three
gathers, the masks) and as many again for PlanPO's turn groups; at 500 turns a row that was most of PlanPO's time
past the turn spans. Here a normalisation is three passes: the segments' sums, their deviations' squares, the
scaled deviations. Every sum is taken in entry order, as ``bincount`` takes it, and each value computed with the
operations numpy applies, in its order, so the results are numpy's bit for bit
(``tests/shaping/test_segment_kernels.py``): the numpy code in ``estimators.py`` stays the reference, held to the
papers' loops. The estimators call these on batches large enough for the call to pay (``estimators._COMPILED_FROM``
entries), so a config's two-trajectory probe never loads numba. Compiled on first use and cached on disk.
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")  # IEEE division: no zero check


@_jit
def normalise(x, segment, w, count, use_std, eps, min_members, out):  # pragma: no cover - compiled
    """``out[i]`` = (x[i] - mean of its segment) · w[i] / (std of its segment + eps) (÷ 1 without ``use_std``),
    0 where its segment has fewer than ``min_members`` members; ``w`` holds the members' 1/0 weights (empty:
    every entry is a member) and ``x`` is already 0 for non-members; ``count`` the members per segment. The
    mean and the unbiased std are over members, as ``estimators.segment_normalise`` states them."""
    n_segments = count.shape[0]
    weighted = w.shape[0] > 0
    total = np.zeros(n_segments)
    for i in range(x.shape[0]):
        total[segment[i]] += x[i]
    mean = total / np.maximum(count, 1.0)
    squares = np.zeros(n_segments)
    for i in range(x.shape[0]):
        s = segment[i]
        dev = x[i] - mean[s]
        if weighted:
            dev *= w[i]
        out[i] = dev
        squares[s] += dev * dev
    denominator = np.ones(n_segments)
    if use_std:
        denominator = np.sqrt(squares / np.maximum(count - 1.0, 1.0)) + eps
    kept = count >= min_members
    for i in range(x.shape[0]):
        s = segment[i]
        out[i] = out[i] / denominator[s] if kept[s] else 0.0
    return out


INDEX_FINAL, INDEX_SUCCESS, INDEX = 0, 1, 2  # PlanPO's per-index groupings: their place in ``estimators.GROUPINGS``


@_jit
def planpo_turns(group, turns, ok, reward, lengths, grouping, use_std, eps, alpha, a_e):  # pragma: no cover
    """PlanPO's turn term for the per-index groupings, as ``estimators.planpo`` computes it in numpy: R^S =
    reward / L per turn (``reward`` already 0 for failures), turn groups (group, turn index), a trajectory's final
    turn apart under ``INDEX_FINAL``, members the successes' turns (every turn under ``INDEX``), normalised as
    ``normalise`` does. Returns (A^S, A^E + α·A^S) per turn, trajectory-major.

    A trajectory's turns 0..T-1 fall in consecutive segments of its group, so each pass runs over whole
    trajectories on contiguous slices (turns, segments), loops the compiler vectorises; a segment still gets its
    trajectories' terms in trajectory order, as ``bincount`` adds them."""
    n = turns.shape[0]
    n_groups = 0
    for i in range(n):
        n_groups = max(n_groups, group[i] + 1)
    longest = np.zeros(n_groups, dtype=np.int64)
    for i in range(n):
        longest[group[i]] = max(longest[group[i]], turns[i])
    offset = np.cumsum(longest) - longest  # group g's turn t is index segment offset[g] + t
    first = np.cumsum(turns) - turns  # each trajectory's first turn in the flat list
    n_index = longest.sum()
    apart = grouping == INDEX_FINAL  # the final turn in its group's final segment, n_index + g
    n_segments = n_index + n_groups if apart else n_index
    a_s = np.empty(lengths.shape[0])
    count = np.zeros(n_segments)
    total = np.zeros(n_segments)
    for i in range(n):  # R^S, kept in a_s; each segment's members and sum
        size = turns[i]
        if size == 0:
            continue
        member = 1.0 if ok[i] or grouping == INDEX else 0.0
        r = reward[i]
        x = a_s[first[i]:first[i] + size]
        tokens = lengths[first[i]:first[i] + size]
        for t in range(size):
            x[t] = r / tokens[t]
        body = size - 1 if apart else size
        members = count[offset[group[i]]:offset[group[i]] + body]
        sums = total[offset[group[i]]:offset[group[i]] + body]
        for t in range(body):
            members[t] += member
            sums[t] += x[t]
        if apart:
            count[n_index + group[i]] += member
            total[n_index + group[i]] += x[size - 1]
    mean = total / np.maximum(count, 1.0)
    squares = np.zeros(n_segments)
    for i in range(n):  # deviations from the segment's mean (0 for a failure's turns but under INDEX)
        size = turns[i]
        if size == 0:
            continue
        member = 1.0 if ok[i] else 0.0
        x = a_s[first[i]:first[i] + size]
        body = size - 1 if apart else size
        means = mean[offset[group[i]]:offset[group[i]] + body]
        squared = squares[offset[group[i]]:offset[group[i]] + body]
        for t in range(body):
            dev = x[t] - means[t]
            if grouping != INDEX:
                dev *= member
            x[t] = dev
            squared[t] += dev * dev
        if apart:
            dev = (x[size - 1] - mean[n_index + group[i]]) * member
            x[size - 1] = dev
            squares[n_index + group[i]] += dev * dev
    denominator = np.ones(n_segments)
    if use_std:
        denominator = np.sqrt(squares / np.maximum(count - 1.0, 1.0)) + eps
    kept = count >= 2
    per_turn = np.empty(lengths.shape[0])
    for i in range(n):  # scaled, and A^E + α·A^S
        size = turns[i]
        if size == 0:
            continue
        x = a_s[first[i]:first[i] + size]
        out = per_turn[first[i]:first[i] + size]
        body = size - 1 if apart else size
        scale = denominator[offset[group[i]]:offset[group[i]] + body]
        keep = kept[offset[group[i]]:offset[group[i]] + body]
        for t in range(body):
            x[t] = x[t] / scale[t] if keep[t] else 0.0
        if apart:
            s = n_index + group[i]
            x[size - 1] = x[size - 1] / denominator[s] if kept[s] else 0.0
        for t in range(size):
            out[t] = a_e[i] + alpha * x[t]
    return a_s, per_turn
