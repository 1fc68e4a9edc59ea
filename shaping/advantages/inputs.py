"""Checks and conversions of what a trainer hands the advantage estimators: group ids, success flags, rewards,
turn lengths and options. Each problem is a ``ValueError`` naming the field (and the entry), never a silent
conversion: ``bool("False")`` is True, ``int(1.7)`` is 1, ``np.int64(2**70)`` overflows, and rewards near
1e154 square to inf, which would turn a whole batch's advantages into zeros.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

MAX_REWARD = 1e100  # squares (the group variance) stay far from float overflow
MAX_TURN_TOKENS = 2**31


def _host(values: Any) -> Any:
    """A torch tensor (on any device) as a numpy array; anything else unchanged (the core imports no torch)."""
    if type(values).__module__.split(".")[0] == "torch":
        return values.detach().cpu().numpy()
    return values


def group_codes(index: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Dense integer codes (0..groups-1) for any hashable group ids: VERL's ``uid`` strings, TRL's prompt
    positions, tuples, or a tensor of integers. Equal ids (``==`` and same hash) share a code."""
    index = _host(index)
    if isinstance(index, np.ndarray) and index.dtype != object:
        if index.ndim != 1:
            raise ValueError(f"group ids must be one id per trajectory (1-D), got shape {index.shape}")
        _, codes = np.unique(index, return_inverse=True)
        return codes.reshape(-1).astype(np.int64)
    seen: dict[Any, int] = {}
    try:
        return np.fromiter((seen.setdefault(x, len(seen)) for x in index), dtype=np.int64)
    except TypeError as exc:
        raise ValueError(f"group ids must be hashable (strings, numbers, or tuples of them): {exc}") from None


def dense_codes(group: np.ndarray, name: str = "group") -> np.ndarray:
    """Validated integer codes (of groups, or of ``name``), renumbered 0..k-1 when they are sparse (so no
    per-code array is sized by the largest code)."""
    group = np.asarray(group)
    if group.ndim != 1 or group.dtype.kind not in "iu":
        raise ValueError(f"{name} must be a 1-D array of integer codes (use group_codes), got {group.dtype} "
                         f"{group.shape}")
    if len(group) and (int(group.min()) < 0 or int(group.max()) >= len(group)):
        return group_codes(group)
    return group.astype(np.int64, copy=False)


def _first(bad: np.ndarray) -> int:
    return int(np.flatnonzero(bad)[0])


def _show(value: Any) -> str:
    """A value as the user wrote it: ``1.7``, ``'False'``, not ``np.float64(1.7)``."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def success_flags(values: Any, n: int) -> np.ndarray:
    """One True/False per trajectory. Accepted: bools, and numbers that are exactly 0 or 1; a string
    ("False"), NaN or 0.5 is an error rather than a truthy value."""
    arr = np.asarray(_host(values))
    if arr.shape != (n,):
        raise ValueError(f"success must hold one flag per trajectory ({n}), got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iuf":
        bad = (arr != 0) & (arr != 1)  # NaN compares unequal to both
    elif arr.dtype == object:
        bad = np.fromiter((not _is_flag(v) for v in arr), dtype=bool, count=n)
    else:
        bad = np.ones(n, dtype=bool)
    if bad.any():
        i = _first(bad)
        raise ValueError(f"success[{i}] is {_show(arr[i])}; use True/False (or 1/0)")
    return arr.astype(bool)


def _is_flag(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return True
    return isinstance(value, (int, float, np.integer, np.floating)) and value in (0, 1)


def rewards(values: Any, name: str = "reward") -> np.ndarray:
    """Float64 rewards, finite and within ``MAX_REWARD`` in magnitude. Text ("1.0") is refused, not parsed."""
    raw = np.asarray(_host(values))
    if raw.dtype.kind in "biuf":
        arr = raw.astype(np.float64)
    else:  # mixed or text: look at each value as given
        given = np.asarray(_host(values), dtype=object).reshape(-1)
        numbers = np.full(len(given), np.nan)
        for i, v in enumerate(given):
            if not isinstance(v, (int, float, np.number)):
                raise ValueError(f"{name}[{i}] is {_show(v)}; rewards must be numbers")
            try:
                numbers[i] = float(v)
            except OverflowError:
                numbers[i] = np.inf
        arr = numbers.reshape(raw.shape)
    if arr.ndim != 1:
        raise ValueError(f"{name} must hold one number per trajectory (1-D), got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (np.abs(arr) > MAX_REWARD)
    if bad.any():
        i = _first(bad)
        raise ValueError(f"{name}[{i}] is {_show(arr[i])}; rewards must be finite and within ±{MAX_REWARD:g} "
                         "(larger values overflow the group statistics)")
    return arr


def turn_counts(turns: np.ndarray) -> np.ndarray:
    turns = np.asarray(turns)
    if turns.ndim != 1 or turns.dtype.kind not in "iu":
        raise ValueError(f"turns must be a 1-D array of integers, got {turns.dtype} {turns.shape}")
    if len(turns) and int(turns.min()) < 0:
        raise ValueError(f"turns[{_first(turns < 0)}] is negative")
    return turns.astype(np.int64, copy=False)


def token_counts(values: Any, where: Callable[[int], str] = lambda k: f"lengths[{k}]") -> np.ndarray:
    """Per-turn generated-token counts as int64: whole numbers from 1 to ``MAX_TURN_TOKENS``.

    ``where(k)`` names the k-th value in an error (e.g. "turn_lengths[3][2]")."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"turn lengths must be a flat list of token counts, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        if not len(arr) or (arr.min() >= 1 and arr.max() <= MAX_TURN_TOKENS):  # two reductions, no mask
            return arr.astype(np.int64, copy=False)
        bad = (arr < 1) | (arr > MAX_TURN_TOKENS)
    elif arr.dtype.kind == "f":  # NaN fails every comparison; inf fails the range
        bad = ~((arr >= 1) & (arr <= MAX_TURN_TOKENS) & (arr == np.floor(arr)))
    elif arr.dtype.kind == "O":
        bad = np.fromiter((not 1 <= (_whole(v) or 0) <= MAX_TURN_TOKENS for v in arr), dtype=bool, count=len(arr))
    else:
        bad = np.ones(len(arr), dtype=bool)
    if bad.any():
        k = _first(bad)
        raise ValueError(f"{where(k)} is {_show(arr[k])}; a turn length is a whole number of tokens from 1 to "
                         f"{MAX_TURN_TOKENS}")
    return arr.astype(np.int64)


def _whole(value: Any) -> int | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (float, np.floating)):
        return int(value) if math.isfinite(value) and float(value).is_integer() else None
    try:
        return operator.index(value)
    except TypeError:
        return None


def nested_token_counts(turn_lengths: Iterable[Any]) -> tuple[np.ndarray, np.ndarray]:
    """(T_i, flat L_{i,t}) from one list of token counts per trajectory, every entry checked."""
    rows = list(turn_lengths)
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise ValueError(f"turn_lengths[{i}] must be a list of token counts, got {type(row).__name__}")
    turns = np.fromiter((len(row) for row in rows), dtype=np.int64, count=len(rows))
    flat = [x for row in rows for x in row]
    starts = np.cumsum(turns) - turns

    def where(k: int) -> str:
        i = int(np.searchsorted(starts, k, side="right")) - 1  # the last trajectory starting at or before k
        return f"turn_lengths[{i}][{k - int(starts[i])}]"

    try:
        values = np.asarray(flat) if flat else np.zeros(0, np.int64)
    except ValueError:  # ragged: a list inside a trajectory's list
        raise ValueError("turn_lengths must hold one flat list of token counts per trajectory") from None
    return turns, token_counts(values, where)


def per_turn_rewards(values: Iterable[Any], turns: np.ndarray, name: str = "step_rewards") -> np.ndarray:
    """One flat, trajectory-major float64 array from one list of per-turn rewards per trajectory (or row), each
    holding exactly one reward per turn; every value checked as ``rewards`` checks an outcome."""
    rows = list(values)
    if len(rows) != len(turns):
        raise ValueError(f"{name} must hold one list of per-turn rewards per trajectory ({len(turns)}), got "
                         f"{len(rows)}")
    for i, (row, t) in enumerate(zip(rows, turns.tolist(), strict=True)):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise ValueError(f"{name}[{i}] must be a list with one reward per turn, got {type(row).__name__}")
        if len(row) != t:
            raise ValueError(f"{name}[{i}] holds {len(row)} rewards for {t} turns; give one reward per assistant turn")
    flat = [x.item() if isinstance(x, np.generic) else x for row in rows for x in _host(row)]
    return rewards(flat, name) if flat else np.zeros(0, dtype=np.float64)


def positive_finite(name: str, value: Any) -> float:
    """An estimator option that divides (``eps``): finite and > 0, or a ValueError naming it."""
    number = finite(name, value)
    if number <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r} (0 divides identical rewards by zero)")
    return number


def finite(name: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number
