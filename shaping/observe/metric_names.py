"""The names planshape logs under, the same in every trainer: ``planshape/<name>``."""

from __future__ import annotations

PREFIX = "planshape/"
ADVANTAGE_STATS = ("alpha", "adv_e_mean", "adv_e_std", "adv_s_mean", "adv_s_std", "turns_mean", "turns_max",
                   "turn_tokens_mean", "success_rate", "groups_multi_success")


def metric_name(key: str) -> str:
    """A metric's logged name."""
    return f"{PREFIX}{key}"
