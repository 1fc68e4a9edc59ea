"""The two checking modes. ``official`` keeps every upstream quirk; ``strict`` closes the exploitable ones.

Each flag is one quirk: Q1-Q10 are those of notes §8, Q11-Q15 were found hunting for reward exploits
(issue 8), Q16-Q21 checking every claim a plan makes (issue 16; Q19 became a timeline for every day and Q16
checks the stated cost in issue 28), Q22 reading what a plan states whatever its form (issue 33);
``docs/modes.md`` holds the table of differences and ``tests/travelplanner/test_quirks.py`` one test per flag.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from .conventions import CONVENTIONS, Conventions


@dataclass(frozen=True)
class Mode:
    """A set of quirk switches. True reproduces upstream behaviour; False closes the quirk."""

    name: str
    stay_day_chars: bool = True  # Q1: stay-day city check iterates over the city's characters
    drop_last_attraction: bool = True  # Q2: ``split(';')[:-1]`` never sees the last attraction
    substring_match: bool = True  # Q3: names match as substrings, first row wins; min-nights needs 1 row
    exact_repeats: bool = True  # Q4: diversity compares raw strings (whitespace variants repeat)
    unchecked_transport: bool = True  # Q5: unknown transport words are free and unchecked
    case_sensitive_transport: bool = True  # Q6: "no flight"/"no self-driving" only see "Flight"/"Self-driving"
    ignore_flight_date: bool = True  # Q7: the flight date is never compared with the query date
    any_city_on_3_days: bool = True  # Q8: 3-day trips never compare the visited city with ``dest``
    cuisine_skips_day: bool = True  # Q9: an origin-city meal skips the rest of that day's meals
    unstripped_parenthesis: bool = True  # Q10: ``City (State)`` keeps a trailing space and fails
    same_place_by_text: bool = True  # Q11: repeats and stays compare text, not the database row it names
    city_by_substring: bool = True  # Q12: an item is "in" a city when the city's name appears in its text
    route_may_skip_origin: bool = True  # Q13: a route that never leaves or returns to ``org`` can pass
    mixed_transport_words: bool = True  # Q14: one transport string may name several modes
    blank_fields_count: bool = True  # Q15: null, blank or ``;``-only fields count as filled
    unchecked_stated_values: bool = True  # Q16: a transport's stated times, duration, distance and cost are unread
    several_places_per_field: bool = True  # Q17: a field's text may hold more than the one place checked
    unread_plan_parts: bool = True  # Q18: later days, day numbers and unknown day keys are never read
    two_places_at_once: bool = True  # Q19: no day is timed (strict: one schedule must fit each day, timeline.py)
    day_trip_any_distance: bool = True  # Q20: a stay-day attraction may be any distance away (strict: same state)
    teleport_between_days: bool = True  # Q21: a day may start elsewhere than the day before ended
    exact_spelling: bool = True  # Q22: text is read by exact spelling (strict: the tolerant reader, reading.py)
    conventions: Conventions = field(default=CONVENTIONS, compare=True)  # strict's bounds the database does not give


OFFICIAL = Mode("official")
QUIRKS = tuple(f.name for f in fields(Mode) if f.type in (bool, "bool"))
STRICT = Mode("strict", **dict.fromkeys(QUIRKS, False))  # type: ignore[arg-type]  # every flag is a bool
MODES = {m.name: m for m in (OFFICIAL, STRICT)}


def get_mode(name: str | Mode, conventions: Conventions | None = None) -> Mode:
    """Resolve a mode name; an unknown name fails with the list of valid ones. ``conventions``: strict's bounds
    (official mode has none: upstream times nothing)."""
    if isinstance(name, Mode):
        mode = name
    else:
        try:
            mode = MODES[name]
        except KeyError:
            raise ValueError(f"unknown mode {name!r}; choose one of {sorted(MODES)}") from None
    if conventions is None or conventions == mode.conventions:
        return mode
    return replace(mode, conventions=conventions)
