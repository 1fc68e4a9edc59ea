"""Per-turn rewards in OpenRLHF (``step_rewards.field``). OpenRLHF's multi-turn executor adds every step's
``rewards`` into the sample's reward and keeps only the last step's ``extra_logs``, scalars under one key set for
every sample: so an agent that rewards turns also logs each step's reward, as it returned it, under
``<field>/<k>`` for k = 0 .. its turn cap - 1 (``turn_reward_logs``; 0 past its last turn). The trainer side reads
them back per sample (``logged_turn_rewards``): the final turn's reward, with whatever OpenRLHF then added to the
sample's reward (its length penalties), is the outcome; the earlier turns' are the per-turn rewards besides it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from planshape.shaping.facade import ConfigError, Shaper, turn_counts

DEFAULT_FIELD = "turn_rewards"


def turn_reward_logs(rewards: Sequence[float], max_turns: int, field: str = DEFAULT_FIELD) -> dict[str, float]:
    """The ``extra_logs`` an agent's final step returns so that planshape sees each of its turns' reward: one key
    ``<field>/<k>`` per turn up to ``max_turns`` (the same keys for every sample, as OpenRLHF requires), each step's
    reward as the agent returned it, 0 past the last turn."""
    if len(rewards) > max_turns:
        raise ValueError(f"{len(rewards)} turns rewarded but max_turns={max_turns}: raise max_turns to the agent's cap")
    values = [float(r) for r in rewards] + [0.0] * (max_turns - len(rewards))
    return {f"{field}/{k}": value for k, value in enumerate(values)}


def logged_turn_rewards(shaper: Shaper, experiences: Sequence[Any]) -> list[list[float]] | None:
    """Each sample's logged per-turn rewards (``turn_reward_logs``), one per assistant turn of its action mask, in
    batch order; None without ``step_rewards.field``. The keys are taken out of ``info`` (they are inputs, not
    metrics). A sample whose keys miss a turn, or log a reward past its last turn, is an error naming it."""
    field = shaper.step_reward_field
    if field is None:  # per-turn rewards logged under the documented name, which nothing reads: refused
        names = {str(key).partition("/")[0] for exp in experiences for key in exp.info if "/" in str(key)}
        shaper.refuse_unread_step_rewards(names, "an experience's extra_logs (turn_rewards/<k>)")
        return None
    pattern = re.compile(rf"{re.escape(field)}/(\d+)")
    out: list[list[float]] = []
    for exp in experiences:
        keys = {int(m.group(1)): key for key in list(exp.info) if (m := pattern.fullmatch(str(key)))}
        columns = [torch.as_tensor(exp.info.pop(keys[k])).double().reshape(-1).numpy() for k in sorted(keys)]
        logged = np.stack(columns, axis=1) if columns else np.zeros((exp.action_mask.shape[0], 0))
        for row, turns in enumerate(turn_counts(exp.action_mask)):
            if sorted(keys)[:turns] != list(range(turns)):
                raise ConfigError(f"step_rewards.field={field}: sample {len(out)} has {turns} turns but its extra_logs "
                                  f"hold {field}/k for k in {sorted(keys)}; the agent's final step returns "
                                  f"turn_reward_logs(rewards, max_turns, {field!r}) (planshape.adapters.openrlhf."
                                  "turn_rewards) with max_turns at least its turn cap")
            if np.any(logged[row, turns:] != 0):
                raise ValueError(f"step_rewards.field={field}: sample {len(out)} logs a reward past its last turn "
                                 f"({turns} turns): {logged[row].tolist()}")
            out.append(logged[row, :turns].tolist())
    return out


ROUNDING = 1e-5
"""OpenRLHF sums the steps' rewards and carries them in float32: a difference this small (relative) between the
sample's reward and its logged steps' sum is that rounding, not a penalty."""


def split_outcome(rewards: np.ndarray, logged: list[list[float]]) -> tuple[np.ndarray, list[list[float]]]:
    """(outcome, per-turn rewards besides it) of each sample from its reward (every step's, summed by OpenRLHF, with
    any penalty it added) and its logged per-turn rewards: the earlier turns' rewards are the per-turn ones; the
    final turn's, plus whatever else the reward holds (a penalty; float32 rounding aside, ``ROUNDING``), is the
    outcome, so an outcome of 10 stays exactly 10 for a success threshold."""
    rewards = np.asarray(rewards, dtype=np.float64)
    steps = [[*turns[:-1], 0.0] if turns else [] for turns in logged]
    final = np.asarray([turns[-1] if turns else 0.0 for turns in logged], dtype=np.float64)
    rest = rewards - np.asarray([sum(turns) for turns in logged], dtype=np.float64)
    rest[np.abs(rest) <= ROUNDING * np.maximum(1.0, np.abs(rewards))] = 0.0
    return final + rest, steps
