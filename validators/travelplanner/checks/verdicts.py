"""Check one plan against one query: every verdict with its reason, upstream gating included."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..query import Query
from ..store.sandbox import SandboxStore
from .categories import UNREADABLE, category_of
from .modes import OFFICIAL, Mode, get_mode
from .plan_memo import PlanMemo
from .registry import COMMONSENSE, HARD, HARD_GATE, Check, Trip

MAX_REASON = 300


class Status(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    NA = "n/a"


@dataclass(frozen=True)
class Verdict:
    """One check's verdict. ``category``: why a strict check failed (``categories.py``; None when it passed,
    in official mode, whose reasons are upstream's, and for a plugin check that gives none)."""

    status: Status
    reason: str
    category: str | None = None

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    def to_dict(self) -> dict[str, str]:
        out = {"verdict": self.status.value, "reason": self.reason}
        if self.category is not None:
            out["category"] = self.category
        return out


@dataclass
class PlanResult:
    """All verdicts for one plan. ``hard`` is None when upstream would not run the hard checks."""

    mode: str
    delivered: bool
    commonsense: dict[str, Verdict] = field(default_factory=dict)
    hard: dict[str, Verdict] | None = None
    note: str = ""  # why hard checks did not run, or why the plan could not be evaluated

    @property
    def commonsense_pass(self) -> bool:
        return self.delivered and all(v.status is not Status.FAIL for v in self.commonsense.values())

    @property
    def hard_pass(self) -> bool:
        return self.hard is not None and all(v.status is not Status.FAIL for v in self.hard.values())

    @property
    def final_pass(self) -> bool:
        return self.hard is not None and self.commonsense_pass and self.hard_pass

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "delivered": self.delivered,
            "commonsense": {k: v.to_dict() for k, v in self.commonsense.items()},
            "hard": None if self.hard is None else {k: v.to_dict() for k, v in self.hard.items()},
            "note": self.note,
            "commonsense_pass": self.commonsense_pass,
            "hard_pass": self.hard_pass,
            "final_pass": self.final_pass,
        }


def _clip(text: str, tail: str = "") -> str:
    """``text`` within ``MAX_REASON`` characters, ``tail`` (the category's words) always kept."""
    room = MAX_REASON - len(tail)
    return (text if len(text) <= room else text[: room - 3] + "...") + tail


def _failed(text: str, category: str | None, mode: Mode) -> Verdict:
    """A failing verdict; outside official mode its category is a field and, in words, the reason's end."""
    if mode.name == OFFICIAL.name or category is None:
        return Verdict(Status.FAIL, _clip(text))
    return Verdict(Status.FAIL, _clip(text, f" [{category}]"), category)


def _run(check: Check, trip: Trip) -> tuple[Verdict, str | None]:
    """Run one check; an exception (an input upstream cannot evaluate) becomes a failing verdict."""
    try:
        outcome, reason = check.run(trip)
    except Exception as exc:  # noqa: BLE001 - model output must never raise out of a checker
        crash = _clip(f"unevaluable plan ({type(exc).__name__}: {exc})")
        return _failed(crash, UNREADABLE, trip.mode), crash
    if outcome is None:
        return Verdict(Status.NA, _clip(str(reason))), None
    if outcome:
        return Verdict(Status.PASS, _clip(str(reason))), None
    return _failed(str(reason), category_of(reason), trip.mode), None


def _all_fail(checks: Sequence[Check], reason: str) -> dict[str, Verdict]:
    return {c.key: Verdict(Status.FAIL, reason) for c in checks}


def as_days(plan: Any) -> list[Any] | None:
    """The plan's days as a list, or None when ``plan`` is not a sequence of days.

    Besides lists and tuples this takes what a dataset row gives an adapter: a numpy array of day dicts
    (a parquet column read through pandas), a pandas Series, any other sequence. Text and mappings are not
    sequences of days.
    """
    if isinstance(plan, (list, tuple)):
        return list(plan)
    if plan is None or isinstance(plan, (str, bytes, bytearray, Mapping)):
        return None
    try:
        if callable(getattr(plan, "tolist", None)):  # numpy, pandas
            days = plan.tolist()
        elif isinstance(plan, Sequence):
            days = list(plan)
        else:
            return None
    except Exception:  # noqa: BLE001 - an odd object is "not a list of days", not a crash
        return None
    return days if isinstance(days, list) else None


def _falsy(plan: Any) -> bool:
    try:
        return not plan
    except Exception:  # noqa: BLE001 - e.g. an object whose truth value is ambiguous
        return False


def check_plan(
    plan: Any,
    query: Query,
    store: SandboxStore,
    mode: str | Mode = "official",
    commonsense: Sequence[Check] = COMMONSENSE,
    hard: Sequence[Check] = HARD,
    stop_at_failure: bool = False,
    memo: PlanMemo | None = None,
) -> PlanResult:
    """Every commonsense verdict, and the hard verdicts when upstream would compute them.

    Never raises on ``plan``. In official mode, a plan on which the upstream evaluator would crash fails
    every check (upstream produces no verdict at all); strict mode fails only the checks that cannot run.
    ``stop_at_failure``: return at the first failing check (only ``final_pass`` is then meaningful; the
    reward-hacking monitor needs no more of its second pass). ``memo``: the plan's parses and place rows
    from another pass over the same plan and ``store`` (the monitor's); a fresh one when None.
    """
    mode = get_mode(mode)
    days = as_days(plan)
    if not days if days is not None else _falsy(plan):
        return PlanResult(mode.name, delivered=False, note="no plan was delivered")
    if days is None:
        reason = f"the plan is a {type(plan).__name__}, not a list of days"
        return PlanResult(mode.name, True, _all_fail(commonsense, reason), None, reason)
    trip = Trip(query, days[: query.days], store, mode, memo, days[query.days :])  # type: ignore[arg-type]  # None: Trip builds one

    verdicts: dict[str, Verdict] = {}
    crashes: list[str] = []
    for check in commonsense:
        verdicts[check.key], crash = _run(check, trip)
        if crash:
            crashes.append(crash)
        if stop_at_failure and verdicts[check.key].status is Status.FAIL:
            return PlanResult(mode.name, True, verdicts, None, "stopped at the first failing check")
    if crashes and mode.name == "official":
        return PlanResult(mode.name, True, _all_fail(commonsense, crashes[0]), None, crashes[0])

    gate = [k for k in HARD_GATE if k in verdicts and not verdicts[k].passed]
    if gate:
        return PlanResult(mode.name, True, verdicts, None, f"hard checks not run: {', '.join(gate)} failed")
    hard_verdicts: dict[str, Verdict] = {}
    for check in hard:
        hard_verdicts[check.key], crash = _run(check, trip)
        if crash and mode.name == "official":
            return PlanResult(mode.name, True, _all_fail(commonsense, crash), None, crash)
        if stop_at_failure and hard_verdicts[check.key].status is Status.FAIL:
            break
    return PlanResult(mode.name, True, verdicts, hard_verdicts)
