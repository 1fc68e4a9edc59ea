"""The reward-hacking monitor's checking side: the official verdict beside the reward's own, in one pass.

A policy rewarded in ``strict`` mode that keeps passing the *official* evaluator while failing strict is
learning the evaluator's quirks. Per sample the monitor gives ``official_pass``, ``strict_pass`` (the
guarded mode: the reward's mode, or ``strict`` when the reward itself is official), ``exploit`` and the
strict rules that separated the two verdicts: the quirk flags of ``modes.Mode`` whose closing alone fails
the plan, found by re-running only the failing checks with one flag reopened (exploits are rare, so this
costs little).

All passes share one ``PlanMemo`` over one ``SharedLookups``: the second pass parses no text again and asks
the database nothing new, and it runs the checks the first pass failed first.
Only the 13 official checks decide ``official_pass`` and ``strict_pass``: a plugin's own check failing is
not an exploit of the official evaluator. The metric names and batch rates live in ``planshape.shaping``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ..query import Query
from ..store.sandbox import SandboxStore
from .lookups import SharedLookups
from .modes import OFFICIAL, QUIRKS, STRICT, Mode, get_mode
from .plan_memo import PlanMemo
from .registry import COMMONSENSE, HARD, Check, Trip
from .verdicts import PlanResult, Status, as_days, check_plan

UNATTRIBUTED = "unattributed"  # strict fails, official passes, and no single quirk flag explains it
OFFICIAL_KEYS = (tuple(c.key for c in COMMONSENSE), tuple(c.key for c in HARD))


@dataclass(frozen=True)
class Watch:
    """The monitor's view of one sample. ``checks``: official checks the guarded mode failed while the
    official evaluator passed the plan; ``rules``: the quirk flags that explain them."""

    official_pass: bool = False
    strict_pass: bool = False
    checks: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()

    @property
    def exploit(self) -> bool:
        return self.official_pass and not self.strict_pass

    @property
    def rule(self) -> str:
        """One name for what separated the verdicts ("" when nothing did): the first flag, or unattributed."""
        if not self.exploit:
            return ""
        return self.rules[0] if self.rules else UNATTRIBUTED

    def to_dict(self) -> dict[str, Any]:
        return {"official_pass": self.official_pass, "strict_pass": self.strict_pass, "exploit": self.exploit,
                "checks": list(self.checks), "rules": list(self.rules)}


NOT_CHECKED = Watch()  # a sample without a checkable plan (no answer, schema, timeout): passes neither mode


def official_keys_pass(result: PlanResult) -> bool:
    """The final pass over the 13 official checks only (plugin checks in ``result`` are ignored)."""
    if not result.delivered or result.hard is None:
        return False
    cs_keys, hard_keys = OFFICIAL_KEYS
    return (all(result.commonsense[k].status is not Status.FAIL for k in cs_keys if k in result.commonsense)
            and all(result.hard[k].status is not Status.FAIL for k in hard_keys if k in result.hard))


def _failed(result: PlanResult) -> list[str]:
    cs_keys, hard_keys = OFFICIAL_KEYS
    failed = [k for k in cs_keys if k in result.commonsense and result.commonsense[k].status is Status.FAIL]
    if result.hard is not None:
        failed += [k for k in hard_keys if k in result.hard and result.hard[k].status is Status.FAIL]
    return failed
class Monitor:
    """Checks a plan in the reward's mode and in ``official`` mode, sharing lookups, and compares them."""

    def __init__(self, mode: str | Mode = "strict", commonsense: Sequence[Check] = COMMONSENSE,
                 hard: Sequence[Check] = HARD):
        self.mode = get_mode(mode)
        self.guarded = STRICT if self.mode.name == OFFICIAL.name else self.mode
        self.commonsense, self.hard = tuple(commonsense), tuple(hard)
        self._by_key = {c.key: c for c in (*COMMONSENSE, *HARD)}
        # One reopened mode per quirk the guarded mode closes: the candidates that can separate the verdicts.
        self._reopened = {q: replace(self.guarded, name=f"{self.guarded.name}+{q}", **{q: getattr(OFFICIAL, q)})
                          for q in QUIRKS if getattr(self.guarded, q) != getattr(OFFICIAL, q)}

    def check(self, plan: Any, query: Query, store: SandboxStore) -> tuple[PlanResult, Watch]:
        """The reward's ``PlanResult`` (every check, plugins' included) and the monitor's ``Watch``.

        The reward's pass is complete; the other pass stops at its first failing check, since only its
        final verdict matters (an exploit's guarded pass is completed, to name every separating check).
        Every pass shares one ``PlanMemo``: a text is parsed and a place looked up once per plan.
        """
        memo = PlanMemo(SharedLookups(store))
        if self.mode.name != OFFICIAL.name:
            primary = check_plan(plan, query, memo.store, self.guarded, self.commonsense, self.hard, memo=memo)
            official_pass = check_plan(plan, query, memo.store, OFFICIAL, _failed_first(primary, COMMONSENSE),
                                       _failed_first(primary, HARD), stop_at_failure=True, memo=memo).final_pass
            return primary, self.compare(plan, query, memo, official_pass, primary)
        primary = check_plan(plan, query, memo.store, OFFICIAL, self.commonsense, self.hard, memo=memo)
        official_pass = official_keys_pass(primary)
        guarded = check_plan(plan, query, memo.store, self.guarded, stop_at_failure=True, memo=memo)
        if official_pass and not guarded.final_pass:
            guarded = check_plan(plan, query, memo.store, self.guarded, memo=memo)
        return primary, self.compare(plan, query, memo, official_pass, guarded)

    def compare(self, plan: Any, query: Query, memo: PlanMemo, official_pass: bool, guarded: PlanResult) -> Watch:
        """The ``Watch`` of a plan whose official pass and guarded-mode result are known (``memo``: the plan's)."""
        strict_pass = official_keys_pass(guarded)
        if not official_pass or strict_pass:
            return Watch(official_pass, strict_pass)
        checks = tuple(_failed(guarded))
        candidates = self._flags_read(plan, query, memo, checks)
        known: dict[tuple[str, str], bool] = {}

        def passes(quirk: str, key: str) -> bool:  # each (flag, check) re-run once, though both loops ask
            if (quirk, key) not in known:
                known[(quirk, key)] = self._passes_alone(plan, query, memo, self._reopened[quirk], key)
            return known[(quirk, key)]

        rules = tuple(q for q in candidates if checks and all(passes(q, k) for k in checks))
        if not rules:  # no single flag explains every failure: name those that explain some
            rules = tuple(q for q in candidates if any(passes(q, k) for k in checks))
        return Watch(official_pass, strict_pass, checks, rules)

    def _flags_read(self, plan: Any, query: Query, memo: PlanMemo, checks: Sequence[str]) -> list[str]:
        """The reopenable quirk flags that the failing checks consult on this plan (the only candidates)."""
        recording = _Recording(**{f.name: getattr(self.guarded, f.name) for f in fields(Mode)})
        for key in checks:
            self._passes_alone(plan, query, memo, recording, key)
        return [q for q in self._reopened if q in recording.read]

    def _passes_alone(self, plan: Any, query: Query, memo: PlanMemo, mode: Mode, key: str) -> bool:
        """Does check ``key`` stop failing under ``mode``? (Hard checks run alone, without their gate.)

        The check runs on its own ``Trip``, as ``check_plan`` would run it alone (a crash fails it; no other
        check runs in a mode that is not official), without building a ``PlanResult``: an exploit's
        attribution re-runs a check once per candidate flag."""
        days = as_days(plan)
        if not days:
            return False
        trip = Trip(query, days[: query.days], memo.store, mode, memo, days[query.days :])
        try:
            outcome, _ = self._by_key[key].run(trip)
        except Exception:  # noqa: BLE001 - as ``check_plan``: an input a check cannot read fails it
            return False
        return outcome is None or bool(outcome)


def _failed_first(result: PlanResult, checks: Sequence[Check]) -> tuple[Check, ...]:
    """``checks`` with those ``result`` failed moved to the front (stable): a plan one mode fails usually
    fails the other on the same check, and a pass that stops at its first failure then stops at once.
    The order cannot change a final verdict: the checks are independent and all must pass."""
    verdicts = {**result.commonsense, **(result.hard or {})}
    failed = tuple(c for c in checks if c.key in verdicts and verdicts[c.key].status is Status.FAIL)
    return failed + tuple(c for c in checks if c not in failed)


class _Recording(Mode):
    """A mode that remembers which quirk flags the checks read (dataclass fields are plain attributes)."""

    def __init__(self, **flags: Any):
        super().__init__(**flags)
        object.__setattr__(self, "read", set())

    def __getattribute__(self, name: str) -> Any:
        if name in QUIRKS:
            object.__getattribute__(self, "read").add(name)
        return object.__getattribute__(self, name)
