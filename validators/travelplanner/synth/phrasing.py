"""A query's fields as the natural-language request the benchmark's queries are: templates written after the
phrasings of the 45 train and 180 validation queries (how they open, date a trip, count a party, state a budget,
and ask for each house rule, room type, cuisine list and transportation rule), drawn with the query's own
generator so the text is fixed by the seed. Every fact of the query is in its text (``tests`` read them back).
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from .fields import Fields

NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}

OPENINGS_ONE_CITY = (
    "Please help me plan a trip from {org} to {dest} spanning {days} days {dates}{party}.",
    "Can you provide a travel plan{party} departing from {org} to {dest} for {days} days, {dates}?",
    "Please design a travel plan departing from {org} and heading to {dest} for {days} days, {dates}{party}.",
    "Could you create a {days}-day travel itinerary{party}, departing from {org} and heading to {dest} {dates}?",
    "Craft a travel plan{party} to depart from {org} and head to {dest} for {days} days, {dates}.",
    "I need a {days}-day trip plan from {org} to {dest}{party}, {dates}.",
    "Could you help arrange a {days}-day travel plan from {org} to {dest}{party} {dates}?",
    "Please create a {days}-day itinerary{party}, leaving from {org} and heading to {dest}; the travel dates are "
    "{dates_bare}.",
)
OPENINGS_STATE = (
    "Could you help me plan a {days}-day trip{party}, starting from {org} and visiting {n} cities in {dest} {dates}?",
    "Can you create a {days}-day travel plan{party} departing from {org} and touring {n} different cities in "
    "{dest}? The travel dates are {dates_bare}.",
    "Please help me craft a {days}-day itinerary{party}: leaving from {org} to explore {n} cities in {dest}, "
    "{dates}.",
    "Could you assist in creating a travel itinerary{party} for a {days}-day trip from {org}, covering {n} cities "
    "in {dest} {dates}?",
    "I'd like a {days}-day travel plan{party}, beginning in {org} and visiting {n} distinct cities in {dest} "
    "{dates}.",
    "Can you devise a travel plan{party} that departs from {org} and includes {n} cities in {dest}? The trip is "
    "scheduled for {days} days, {dates}.",
)
OPENINGS_WEEK = (
    "Can you help me plan a one-week trip{party} from {org} to {dest}, visiting {n} different cities {dates}?",
    "We're organizing a week-long trip{party}, starting in {org} and stopping in {n} different cities in {dest}, "
    "{dates}.",
)
PARTY = {1: (" for a single person", " for one person", " for 1 person", " for a solo traveler"),
         2: (" for two", " for 2 people", " for two people", " for a pair of travelers", " for a couple")}
PARTY_GROUP = (" for a group of {k}", " for {k} people", " for a party of {k}", " for a group of {k} people")
BUDGET = {True: ("The budget for this trip is ${b}.", "My budget is set at ${b}.", "I have a budget of ${b}.",
                 "The trip's budget is ${b}.", "I'd like to keep the whole trip within ${b}."),
          False: ("The budget for this trip is ${b}.", "Our budget is set at ${b}.", "We have a budget of ${b}.",
                  "Our total budget is ${b}.", "Our budget allows us to spend up to ${b}.",
                  "We'd like to keep the whole trip within ${b}.")}
HOUSE_RULE = {
    "parties": ("We require accommodations that allow parties.", "Our accommodations must allow parties.",
                "We'd prefer accommodations where parties are allowed."),
    "smoking": ("We require accommodations where smoking is permitted.", "Our accommodations must allow smoking.",
                "We would prefer smoking-friendly accommodations, as we are smokers."),
    "children under 10": ("Our accommodations must be suitable for children under 10.",
                          "We are traveling with kids, so the accommodations must allow children under 10.",
                          "We require accommodations that allow children under the age of 10."),
    "visitors": ("Our accommodations should allow visitors.", "We require accommodations that welcome visitors.",
                 "Please make sure the house rules of our accommodations allow visitors."),
    "pets": ("We'll bring our pets, so pet-friendly accommodations are a must.", "Our accommodations must allow pets.",
             "We require pet-friendly accommodations."),
}
ROOM_TYPE = {
    "entire room": ("We would like entire rooms for our stay.", "We require entire rooms for our accommodations.",
                    "We'd prefer to have entire rooms to ourselves."),
    "private room": ("We would prefer private rooms.", "We require private rooms for our accommodations.",
                     "Our accommodations should be private rooms."),
    "shared room": ("We'd like to stay in shared rooms.", "Our accommodations should be shared rooms.",
                    "We are looking for shared rooms to keep costs down."),
    "not shared room": ("We'd like rooms that are not shared.", "We require non-shared rooms for our stay.",
                        "Our accommodations should not be shared rooms."),
}
CUISINE = ("We'd love to try {list} cuisines during our trip.", "As for meals, we prefer {list} cuisines.",
           "We'd like to experience {list} cuisine on our journey.",
           "In terms of food, we're hoping for {list} cuisines.",
           "We are food lovers and would like to try {list} cuisines.")
TRANSPORT = {
    "no flight": ("We would prefer to avoid any flights.", "We will not be taking any flights on this trip.",
                  "Our journey should not involve flying."),
    "no self-driving": ("We do not plan to drive ourselves.", "We prefer not to self-drive on this trip.",
                        "We will not be self-driving, so please plan other transportation."),
}


def _pick(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def dates(start: dt.date, end: dt.date, rng: np.random.Generator) -> tuple[str, str]:
    """(with a preposition, bare) forms of the trip's dates, e.g. ``from March 16th to March 18th, 2022``."""
    s, e = start.day, end.day
    bare = _pick(rng, (f"March {ordinal(s)} to March {ordinal(e)}, 2022", f"the {ordinal(s)} to the {ordinal(e)} "
                       f"of March, 2022", f"March {s} to March {e}, 2022"))
    lead = _pick(rng, (f"from {bare}", f"between March {ordinal(s)} and {ordinal(e)}, 2022",
                       f"starting on March {ordinal(s)} and ending on March {ordinal(e)}, 2022"))
    return lead, bare


def listing(items: list[str]) -> str:
    return " and ".join(items) if len(items) <= 2 else f"{', '.join(items[:-1])}, and {items[-1]}"


def render(fields: Fields, budget: int, rng: np.random.Generator) -> str:
    """The request text of ``fields`` with ``budget``."""
    start, end = dt.date.fromisoformat(fields.date[0]), dt.date.fromisoformat(fields.date[-1])
    lead, bare = dates(start, end, rng)
    people = fields.people_number
    party = _pick(rng, PARTY[people]) if people in PARTY else _pick(rng, PARTY_GROUP).format(k=people)
    openings: tuple[str, ...]
    if fields.days <= 3:
        openings = OPENINGS_ONE_CITY
    else:
        openings = OPENINGS_STATE + (OPENINGS_WEEK if fields.days == 7 else ())
    n = fields.visiting_city_number
    count = NUMBER_WORDS[n] if rng.random() < 0.3 else str(n)
    sentences = [_pick(rng, openings).format(org=fields.org, dest=fields.dest, days=fields.days, dates=lead,
                                              dates_bare=bare, party=party, n=count)]
    sentences.append(_pick(rng, BUDGET[people == 1]).format(b=f"{budget:,}"))
    asked = []
    lc = fields.local_constraint
    if lc.get("house rule"):
        asked.append(_pick(rng, HOUSE_RULE[lc["house rule"]]))
    if lc.get("room type"):
        asked.append(_pick(rng, ROOM_TYPE[lc["room type"]]))
    if lc.get("cuisine"):
        asked.append(_pick(rng, CUISINE).format(list=listing(list(lc["cuisine"]))))
    if lc.get("transportation"):
        asked.append(_pick(rng, TRANSPORT[lc["transportation"]]))
    order = rng.permutation(len(asked))
    sentences += [asked[int(i)] for i in order]
    return " ".join(sentences)
