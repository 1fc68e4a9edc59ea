"""GiGPO (Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", arXiv 2505.10978):
``A = A^E + ω·A^S``, an episode-level group advantage plus a step-level one over anchor states, in numpy.

* A^E (episode relative advantage): (R_i − mean_j R_j) / F_norm over the N trajectories of a group, each
  trajectory one sample however many turns it has (the paper's definition; verl-agent's default takes the
  statistics over step rows instead, weighting long trajectories more). A group of one keeps R_i (mean 0,
  F_norm 1), as GRPO does in VERL.
* Step groups: the turns of one group's trajectories that were taken in the same anchor state (the same
  ``Rollouts.anchor`` code within the same prompt group), wherever in their trajectories they came.
* A^S (step relative advantage): the discounted return from the turn, R_{i,t} = Σ_{k≥t} γ^{k−t} r_{i,k},
  normalised within its step group: (R_{i,t} − mean) / F_norm; a step group of one gets 0. Trainers hand the
  estimator one outcome per trajectory, on its final turn, so R_{i,t} = γ^{T_i−t} R_i.

F_norm is std + ε ("std", the paper's "w/ std") or 1 ("none", its "w/o std"); ω = 1 and γ = 0.95 are the
paper's. GiGPO uses no success predicate: it normalises the rewards as they are.
"""

from __future__ import annotations

import numpy as np

from . import inputs
from .estimators import Advantages, Rollouts, _normalise, grpo


def gigpo(rollouts: Rollouts, omega: float = 1.0, gamma: float = 0.95, norm: str = "std",
          eps: float = 1e-6) -> Advantages:
    """GiGPO's per-turn advantages (module docstring). ``rollouts.anchor`` must give every turn's state."""
    if norm not in ("std", "none"):
        raise ValueError(f"unknown GiGPO norm {norm!r}; choose 'std' or 'none'")
    inputs.positive_finite("eps", eps)
    inputs.finite("omega", omega)
    if not 0.0 <= inputs.finite("gamma", gamma) <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
    if rollouts.anchor is None:
        raise ValueError("gigpo groups steps by anchor state: give each turn's state id (anchor: {by: state}, "
                         "the ids the environment provides) or use anchor: {by: tool_calls} (TravelPlanner)")
    use_std = norm == "std"
    a_e = grpo(rollouts, norm_by_std=use_std, eps=eps).trajectory
    T = rollouts.turns
    # 0-based position of each turn in its trajectory; the final turn (position T_i - 1) earns R_i undiscounted
    position = np.arange(len(rollouts.lengths)) - np.repeat(np.cumsum(T) - T, T)
    returns = np.repeat(rollouts.reward, T) * np.power(float(gamma), np.repeat(T - 1, T) - position)
    pair = rollouts.group[rollouts.owner] * (int(rollouts.anchor.max(initial=0)) + 1) + rollouts.anchor
    _, segment = np.unique(pair, return_inverse=True)
    segment = segment.reshape(-1)
    count = np.bincount(segment).astype(np.float64)
    a_s = _normalise(returns, segment, None, count, use_std, eps)
    return Advantages(a_e, a_s, np.repeat(a_e, T) + omega * a_s, float(omega))


gigpo.uses_success = False  # type: ignore[attr-defined]  # config checks skip the success predicate for it
gigpo.uses_anchors = True  # type: ignore[attr-defined]  # adapters hand it each turn's anchor state
