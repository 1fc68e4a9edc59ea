"""Why a strict check failed, in one of a few countable categories (a field of every failing ``Verdict``).

A reward errs two ways: it pays what no one could travel, or it fails an honest plan for its form. Each strict
failure says which kind of fact failed it, so that both can be counted (docs/testing.md counts them on real model
outputs):

- ``stated falsehood``: the plan states what the database (or the query's own facts) says otherwise: a place,
  flight or road that does not exist, a value that is not its row's, a place in another city than the one given;
- ``physically impossible``: the clock and the distances: two places at once, a day no schedule fits even with
  every convention relaxed, a day that starts where the day before did not end;
- ``convention``: a bound the database does not give (meal and sight windows, least times, airport times, the
  day-trip reach): the plan fails strict's convention, not a fact (``conventions.py``);
- ``query unmet``: the plan does not do what the query or the benchmark asks (days, cities, budget, rules, a
  meal left out, a repeat, a transport that is not one of the database's modes);
- ``unreadable``: text strict cannot read as the claim it must check (a place on two lines, a second place in
  one field). On honest model outputs this category, the one of *form*, must stay empty.
"""

from __future__ import annotations

FALSEHOOD = "stated falsehood"
IMPOSSIBLE = "physically impossible"
CONVENTION = "convention"
UNMET = "query unmet"
UNREADABLE = "unreadable"
CATEGORIES = (FALSEHOOD, IMPOSSIBLE, CONVENTION, UNMET, UNREADABLE)
FORM = (UNREADABLE,)


class Reason(str):
    """A check's reason text that also carries its category (a ``str``: every caller reads it as text)."""

    category: str

    def __new__(cls, text: str, category: str) -> Reason:
        out = super().__new__(cls, text)
        out.category = category
        return out


def because(category: str, text: str) -> Reason:
    """A failure reason of ``category`` (one of ``CATEGORIES``)."""
    return Reason(text, category)


def category_of(reason: object) -> str | None:
    """The category a check gave its reason, or None (a plugin's plain text)."""
    return getattr(reason, "category", None)
