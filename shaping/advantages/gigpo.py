"""GiGPO (Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", arXiv 2505.10978):
``A = A^E + ω·A^S``, an episode-level group advantage plus a step-level one over anchor states, in numpy.

* A^E (episode relative advantage): the episode's return R(τ_i) = Σ_t r_{i,t} (the outcome plus any per-turn
  rewards), (R(τ_i) − mean) / F_norm over the group. ``episode_stats`` says over what the mean and std run:
  ``"trajectories"`` (default; the paper's Eq. 3: each trajectory one sample however many turns it has) or
  ``"turns"`` (verl-agent's default, ``compute_mean_std_cross_steps``: every turn of a trajectory one sample, so
  a long trajectory weighs more). A group of one sample keeps its return (mean 0, F_norm 1), as GRPO in VERL.
* Step groups: the turns of one group's trajectories that were taken in the same anchor state (the same
  ``Rollouts.anchor`` code within the same prompt group), wherever in their trajectories they came.
* A^S (step relative advantage): the discounted return from the turn, G_{i,t} = Σ_{k≥t} γ^{k−t} r_{i,k} (Eq. 5),
  normalised within its step group: (G_{i,t} − mean) / F_norm; a step group of one gets 0. A turn's reward r_{i,t}
  is its per-turn reward ``Rollouts.step_reward`` (0 without one) plus, on the final turn, the outcome R_i; with
  outcome rewards only, G_{i,t} = γ^{T_i−t} R_i.

F_norm is std + ε ("std", the paper's "w/ std") or 1 ("none", its "w/o std" and verl-agent's ``mean_norm``);
ω = 1 and γ = 0.95 are the paper's. GiGPO uses no success predicate: it normalises the rewards as they are.
"""

from __future__ import annotations

import numpy as np

from . import inputs
from .estimators import Advantages, Rollouts, _normalise, grpo

EPISODE_STATS = ("trajectories", "turns")


def gigpo(rollouts: Rollouts, omega: float = 1.0, gamma: float = 0.95, norm: str = "std",
          eps: float = 1e-6, episode_stats: str = "trajectories") -> Advantages:
    """GiGPO's per-turn advantages (module docstring). ``rollouts.anchor`` must give every turn's state."""
    if norm not in ("std", "none"):
        raise ValueError(f"unknown GiGPO norm {norm!r}; choose 'std' or 'none'")
    if episode_stats not in EPISODE_STATS:
        raise ValueError(f"unknown GiGPO episode_stats {episode_stats!r}; choose 'trajectories' (the paper's Eq. 3) "
                         "or 'turns' (verl-agent's: the statistics over every turn)")
    inputs.positive_finite("eps", eps)
    inputs.finite("omega", omega)
    if not 0.0 <= inputs.finite("gamma", gamma) <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
    if rollouts.anchor is None:
        raise ValueError("gigpo groups steps by anchor state: give each turn's state id (anchor: {by: state}, "
                         "the ids the environment provides) or use anchor: {by: tool_calls} (TravelPlanner)")
    use_std = norm == "std"
    if episode_stats == "trajectories":
        a_e = grpo(rollouts, norm_by_std=use_std, eps=eps, reward="sum").trajectory
    else:
        a_e = _over_turns(rollouts.trajectory_reward("sum"), rollouts.group, rollouts.turns, use_std, eps)
    T = rollouts.turns
    returns = _discounted_returns(rollouts, float(gamma))
    pair = rollouts.group[rollouts.owner] * (int(rollouts.anchor.max(initial=0)) + 1) + rollouts.anchor
    _, segment = np.unique(pair, return_inverse=True)
    segment = segment.reshape(-1)
    count = np.bincount(segment).astype(np.float64)
    a_s = _normalise(returns, segment, None, count, use_std, eps)
    return Advantages(a_e, a_s, np.repeat(a_e, T) + omega * a_s, float(omega))


def _over_turns(episode: np.ndarray, group: np.ndarray, turns: np.ndarray, use_std: bool, eps: float) -> np.ndarray:
    """(R_i − mean) / F_norm with each trajectory counted once per turn (unbiased std over the turns); a group
    with one turn in all keeps R_i, as verl-agent's group of one row."""
    n_groups = int(group.max()) + 1 if len(group) else 0
    w = turns.astype(np.float64)
    count = np.bincount(group, weights=w, minlength=n_groups)
    mean = np.bincount(group, weights=w * episode, minlength=n_groups) / np.maximum(count, 1.0)
    dev = episode - mean[group]
    std = np.sqrt(np.bincount(group, weights=w * dev * dev, minlength=n_groups) / np.maximum(count - 1.0, 1.0))
    single = count[group] <= 1.0
    dev = np.where(single, episode, dev)
    return dev / (np.where(single, 1.0, std[group]) + eps) if use_std else dev


def _discounted_returns(rollouts: Rollouts, gamma: float) -> np.ndarray:
    """G_{i,t} = r_{i,t} + γ·G_{i,t+1} for every turn, trajectory-major: with no per-turn rewards γ^{T_i−1−t}·R_i in
    closed form, else the recursion from each trajectory's final turn back, one turn position at a time over every
    trajectory at once."""
    T = rollouts.turns
    ends = np.cumsum(T)
    position = np.arange(len(rollouts.lengths)) - np.repeat(ends - T, T)
    to_end = np.repeat(T - 1, T) - position  # 0 on each final turn
    if not rollouts.has_step_rewards:
        return np.repeat(rollouts.reward, T) * np.power(gamma, to_end)
    assert rollouts.step_reward is not None
    reward = rollouts.step_reward.copy()
    reward[ends[T > 0] - 1] += rollouts.reward[T > 0]
    returns = reward.copy()
    order = np.argsort(to_end, kind="stable")  # turns by distance to their trajectory's end
    bounds = np.cumsum(np.bincount(to_end))
    for distance in range(1, len(bounds)):  # each turn after the one it precedes
        at = order[bounds[distance - 1]:bounds[distance]]
        returns[at] += gamma * returns[at + 1]
    return returns


gigpo.uses_success = False  # type: ignore[attr-defined]  # config checks skip the success predicate for it
gigpo.uses_anchors = True  # type: ignore[attr-defined]  # adapters hand it each turn's anchor state
gigpo.uses_step_rewards = True  # type: ignore[attr-defined]  # every turn's reward enters its discounted return
