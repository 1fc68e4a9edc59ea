"""The compiled segment normalisation (``advantages/segment_kernels.py``) gives numpy's values bit for bit, and
every estimator that normalises gives the same advantages through it as through numpy on a large batch (numpy's
path is the one held to the papers' plain loops, tests/paper_reference.py)."""

from __future__ import annotations

import numpy as np
import pytest
from planshape.shaping.advantages import Rollouts, estimators, planpo
from planshape.shaping.advantages.gigpo import gigpo
from planshape.shaping.advantages.segment_kernels import normalise

NEVER = 1 << 62  # as ``estimators._COMPILED_FROM``: numpy on every batch


@pytest.mark.parametrize("use_std", [True, False])
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("min_members", [1, 2, 3])
def test_the_kernel_is_numpy_bit_for_bit(use_std, weighted, min_members, monkeypatch):
    rng = np.random.default_rng(7)
    n, n_segments = 20_000, 3_000
    segment = rng.integers(0, n_segments, n)
    w = (rng.random(n) < 0.6).astype(np.float64) if weighted else None
    x = rng.normal(0, 3, n) * (1.0 if w is None else w)
    count = np.bincount(segment, weights=w, minlength=n_segments + 5)  # segments with no entry too
    monkeypatch.setattr(estimators, "_COMPILED_FROM", NEVER)
    want = estimators._normalise(x.copy(), segment, w, count, use_std, 1e-6, min_members)
    got = normalise(x, segment, np.empty(0) if w is None else w, count, use_std, 1e-6, min_members, np.empty(n))
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))


def _batch(trajectories: int = 1024, seed: int = 3) -> Rollouts:
    rng = np.random.default_rng(seed)
    turns = rng.integers(1, 12, trajectories)
    return Rollouts(np.arange(trajectories) // 8, rng.choice([0.0, 1.5, 5.0], trajectories), rng.random(trajectories)
                    < 0.5, turns, rng.integers(1, 900, int(turns.sum())), rng.integers(0, 40, int(turns.sum())))


@pytest.mark.parametrize("grouping", ["index-final", "index-success", "index", "task"])
@pytest.mark.parametrize("norm", ["std", "none"])
def test_planpo_on_a_large_batch_is_the_same_through_the_kernel(grouping, norm, monkeypatch):
    rollouts = _batch()
    assert len(rollouts.lengths) >= estimators._COMPILED_FROM  # the turn term takes the kernels
    assert estimators._segment_kernels() is not None  # numba is a dependency: they are there
    options = {"alpha": 0.37, "grouping": grouping, "norm": norm, "failure_credit": "turn-cap", "turn_cap": 12}
    compiled = planpo(rollouts, **options)
    monkeypatch.setattr(estimators, "_COMPILED_FROM", NEVER)
    plain = planpo(rollouts, **options)
    for name in ("trajectory", "turn", "per_turn"):
        assert np.array_equal(getattr(compiled, name), getattr(plain, name)), name


def test_gigpo_on_a_large_batch_is_the_same_through_the_kernel(monkeypatch):
    rollouts = _batch(seed=5)
    compiled = gigpo(rollouts)
    monkeypatch.setattr(estimators, "_COMPILED_FROM", NEVER)
    plain = gigpo(rollouts)
    assert np.array_equal(compiled.per_turn, plain.per_turn) and np.array_equal(compiled.turn, plain.turn)
