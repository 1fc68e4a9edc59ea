"""Leave-one-out baselines (RLOO; Kool et al. 2019, Ahmadian et al. 2024) at trajectory level, in numpy.

A_i = R_i − mean_{j≠i} R_j over the trajectories of a group, the same on every turn of trajectory i. Each
trajectory is one sample: in a row-per-turn batch its rows are first gathered into one trajectory
(``layout.gather_rows``), so a 30-turn trajectory is left out of, and counted in, its peers' baselines once,
not 30 times. A group of one keeps R_i (nothing to leave out), as VERL's ``compute_rloo_outcome_advantage``.
``reward``: R_i is the outcome ("outcome") or the trajectory's return with its per-turn rewards ("sum").
"""

from __future__ import annotations

import numpy as np

from .estimators import Advantages, Rollouts, _sum_reads_steps


def rloo(rollouts: Rollouts, reward: str = "outcome") -> Advantages:
    """R_i minus the mean reward of the other trajectories of its group."""
    r, g = rollouts.trajectory_reward(reward), rollouts.group
    count = np.bincount(g, minlength=rollouts.n_groups).astype(np.float64)
    total = np.bincount(g, weights=r, minlength=rollouts.n_groups)
    others = count[g] - 1.0
    adv = np.where(others > 0, r - (total[g] - r) / np.maximum(others, 1.0), r)
    return Advantages(adv, np.zeros(len(rollouts.lengths)), np.repeat(adv, rollouts.turns), 0.0)


rloo.uses_success = False  # type: ignore[attr-defined]  # config checks skip the success predicate for it
rloo.uses_step_rewards = _sum_reads_steps  # type: ignore[attr-defined]  # per-turn rewards read with reward="sum"
