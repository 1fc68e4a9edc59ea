"""A plugin that changes both ends of the path from model text to verdicts: its own answer format
(``<plan>...</plan>``) and one more commonsense check that fails every plan with a restaurant in it. Every
path (score, explain, evaluate, rollout, each trainer's reward) must read and judge text as the reward does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from planshape.shaping import plugins
from planshape.shaping.hookspecs import hookimpl
from planshape.validators.travelplanner.checks.registry import Check
from planshape.validators.travelplanner.sample import sample_dir

CHECK = "no_restaurants"


def _no_restaurants(trip: Any) -> tuple[bool, str]:
    eats = any(day.get(meal) not in (None, "", "-") for day in trip.days if isinstance(day, dict)
               for meal in ("breakfast", "lunch", "dinner"))
    return (False, "a restaurant is named") if eats else (True, "no restaurant")


class PlanTags:
    @hookimpl
    def planshape_extract_answer(self, text: str) -> str | None:
        start, end = text.rfind("<plan>"), text.rfind("</plan>")
        return text[start + len("<plan>"):end] if 0 <= start < end else None

    @hookimpl
    def planshape_checks(self) -> list[Check]:
        return [Check(CHECK, "No Restaurants", "commonsense", _no_restaurants)]


@contextmanager
def loaded() -> Iterator[None]:
    """The plugin registered in this process for the block's duration."""
    plugins.plugin_manager().register(PlanTags(), name="one-path-test")
    try:
        yield
    finally:
        plugins.plugin_manager().unregister(name="one-path-test")


def passing_rollout() -> tuple[str, dict]:
    """The sample world's first passing answer, rewritten in the plugin's format; and its query."""
    row = json.loads((sample_dir() / "rollouts.jsonl").read_text(encoding="utf-8").splitlines()[0])
    body = row["text"].split("<answer>")[-1].split("</answer>")[0]
    return f"Here is the trip.\n<plan>{body}</plan>", row["query"]
