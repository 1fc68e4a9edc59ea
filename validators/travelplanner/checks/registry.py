"""The registry of the 8 commonsense and 5 hard TravelPlanner checks, in ``official`` or ``strict`` mode.

Each check takes a ``Trip`` and returns ``(True | False | None, reason)``; None means not applicable.
The checks live in ``commonsense`` and ``hard``; ``trip`` holds what they share. Mode flags
(``modes.Mode``) switch each known quirk on (official) or off (strict).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .commonsense import (
    is_not_absent,
    is_reasonable_visiting_city,
    is_valid_accommodation,
    is_valid_attractions,
    is_valid_information_in_current_city,
    is_valid_information_in_sandbox,
    is_valid_restaurants,
    is_valid_transportation,
)
from .hard import valid_cost, valid_cuisine, valid_room_rule, valid_room_type, valid_transportation
from .trip import Outcome, Trip

__all__ = ["COMMONSENSE", "HARD", "HARD_GATE", "Check", "Trip"]


@dataclass(frozen=True)
class Check:
    """A named check: ``key`` is the upstream result key, ``label`` the paper's name."""

    key: str
    label: str
    category: str  # "commonsense" | "hard"
    run: Callable[[Trip], Outcome]


COMMONSENSE = (
    Check("is_valid_information_in_current_city", "Within Current City", "commonsense",
          is_valid_information_in_current_city),
    Check("is_valid_information_in_sandbox", "Within Sandbox", "commonsense", is_valid_information_in_sandbox),
    Check("is_reasonable_visiting_city", "Reasonable City Route", "commonsense", is_reasonable_visiting_city),
    Check("is_valid_restaurants", "Diverse Restaurants", "commonsense", is_valid_restaurants),
    Check("is_valid_transportation", "Non-conf. Transportation", "commonsense", is_valid_transportation),
    Check("is_valid_attractions", "Diverse Attractions", "commonsense", is_valid_attractions),
    Check("is_valid_accommodation", "Minimum Nights Stay", "commonsense", is_valid_accommodation),
    Check("is_not_absent", "Complete Information", "commonsense", is_not_absent),
)
HARD = (
    Check("valid_cost", "Budget", "hard", valid_cost),
    Check("valid_room_rule", "Room Rule", "hard", valid_room_rule),
    Check("valid_cuisine", "Cuisine", "hard", valid_cuisine),
    Check("valid_room_type", "Room Type", "hard", valid_room_type),
    Check("valid_transportation", "Transportation", "hard", valid_transportation),
)
# Hard checks run only when these commonsense checks pass (upstream eval.py).
HARD_GATE = ("is_not_absent", "is_valid_information_in_sandbox")
