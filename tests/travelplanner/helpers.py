"""Small builders for hand-made plans in tests."""

from __future__ import annotations

import copy

from planshape.validators.travelplanner.query import Query

ROCKFORD = Query(
    org="St. Petersburg", dest="Rockford", days=3, visiting_city_number=1,
    date=["2022-03-16", "2022-03-17", "2022-03-18"], people_number=1, budget=1700, level="easy",
)
# The first train gold plan (St. Petersburg -> Rockford, 3 days).
ROCKFORD_PLAN = [
    {"days": 1, "current_city": "from St. Petersburg to Rockford",
     "transportation": "Flight Number: F3573659, from St. Petersburg to Rockford, Departure Time: 15:40, "
                       "Arrival Time: 17:04",
     "breakfast": "-", "attraction": "-", "lunch": "-", "dinner": "Coco Bambu, Rockford",
     "accommodation": "Pure luxury one bdrm + sofa bed on Central Park, Rockford"},
    {"days": 2, "current_city": "Rockford", "transportation": "-", "breakfast": "Dial A Cake, Rockford",
     "attraction": "Burpee Museum of Natural History, Rockford;Midway Village Museum, Rockford;"
                   "Discovery Center Museum, Rockford;",
     "lunch": "Flying Mango, Rockford", "dinner": "Cafe Southall, Rockford",
     "accommodation": "Pure luxury one bdrm + sofa bed on Central Park, Rockford"},
    {"days": 3, "current_city": "from Rockford to St. Petersburg",
     "transportation": "Flight Number: F3573120, from Rockford to St. Petersburg, Departure Time: 19:00, "
                       "Arrival Time: 22:43",
     "breakfast": "Subway, Rockford",
     "attraction": "Klehm Arboretum & Botanic Garden, Rockford;Sinnissippi Park, Rockford;",
     "lunch": "Gajalee Sea Food, Rockford", "dinner": "Nutri Punch, Rockford", "accommodation": "-"},
]


def rockford(**changes) -> list[dict]:
    """The Rockford gold plan with ``{(day_index, key): value}`` edits."""
    plan = copy.deepcopy(ROCKFORD_PLAN)
    for (day, key), value in changes.get("edits", {}).items():
        plan[day][key] = value
    return plan


def verdicts(result) -> dict[str, str]:
    return {k: v.status.value for k, v in (result.commonsense | (result.hard or {})).items()}
