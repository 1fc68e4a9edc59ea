"""THE list of planshape metric keys a trainer logs per step, written out once for every trainer's suite.

The VERL, TRL and OpenRLHF suites run in venvs of their own, so no single test can import all three trainers;
each asserts that its log holds exactly ``expected_keys(groups)``, and the core suite that the facade's
names are these. The monitor's per-rule keys follow the quirk flags of docs/modes.md (``modes.QUIRKS``).
"""

from __future__ import annotations

from collections.abc import Iterable

from planshape.validators.travelplanner.checks.modes import QUIRKS

GROUPS = ("core", "components", "failures", "monitor", "advantages")

KEYS: dict[str, tuple[str, ...]] = {
    "core": ("planshape/reward", "planshape/success"),
    "components": ("planshape/schema", "planshape/cs_micro", "planshape/hard_micro", "planshape/cs_macro",
                   "planshape/hard_macro", "planshape/pass"),
    "failures": (
        "planshape/failure/pass", "planshape/failure/no_answer", "planshape/failure/schema",
        "planshape/failure/commonsense:is_valid_information_in_current_city",
        "planshape/failure/commonsense:is_valid_information_in_sandbox",
        "planshape/failure/commonsense:is_reasonable_visiting_city",
        "planshape/failure/commonsense:is_valid_restaurants", "planshape/failure/commonsense:is_valid_transportation",
        "planshape/failure/commonsense:is_valid_attractions", "planshape/failure/commonsense:is_valid_accommodation",
        "planshape/failure/commonsense:is_not_absent", "planshape/failure/hard_not_run",
        "planshape/failure/hard:valid_cost", "planshape/failure/hard:valid_room_rule",
        "planshape/failure/hard:valid_cuisine", "planshape/failure/hard:valid_room_type",
        "planshape/failure/hard:valid_transportation", "planshape/failure/error", "planshape/failure/timeout",
        "planshape/failure/crash"),
    "monitor": ("planshape/official_pass", "planshape/strict_pass", "planshape/exploit",
                *(f"planshape/exploit/{q}" for q in QUIRKS), "planshape/exploit/unattributed"),
    "advantages": ("planshape/alpha", "planshape/adv_e_mean", "planshape/adv_e_std", "planshape/adv_s_mean",
                   "planshape/adv_s_std", "planshape/turns_mean", "planshape/turns_max", "planshape/turn_tokens_mean",
                   "planshape/success_rate", "planshape/groups_multi_success"),
}


def expected_keys(groups: Iterable[str] = GROUPS) -> set[str]:
    """Every key a step's log holds with these metric groups on (and the monitor on)."""
    return {key for group in groups for key in KEYS[group]}


def planshape_keys(logged: Iterable[str]) -> set[str]:
    """The planshape keys among a trainer's logged keys (every trainer logs them under these exact names)."""
    return {k for k in logged if k.startswith("planshape/")}


# One group off at a time, and the compact choice: what the group tests of every trainer run.
GROUP_CHOICES = [tuple(g for g in GROUPS if g != off) for off in GROUPS] + [("core", "components")]
