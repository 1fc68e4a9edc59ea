"""``planshape audit``: hold a reward to its metamorphic relations (``validators/travelplanner/evaluation/relations``
and every plugin's, through ``planshape_audit_relations``).

Each plan is scored as the reward scores it, in each answer format (``strings``: upstream day dicts, checked as
``planshape evaluate`` checks them; ``json``: the structured answer in an ``<answer>`` block, through the schema
gate as in training), with the plugins' checks and components and the dense schedule (``stage1``: every component
counts, so any verdict that moves moves the reward). Then each relation's edits are scored the same way: a ``keep``
edit must leave the reward where it was, a ``lower`` edit (tried on plans that pass) must lower it. A relation that
breaks is reported with the plan, the edit, the rewards and the reason the edited plan got.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from planshape.validators.travelplanner.evaluation.relations import FORMATS, KEEP, Relation, Subject
from planshape.validators.travelplanner.plan.answer import answer_text
from planshape.validators.travelplanner.plan.formats import from_upstream
from planshape.validators.travelplanner.query import Query

from . import plugins
from .components import first_failure
from .reward import Scorer


@dataclass(frozen=True)
class Case:
    """A plan to audit: its label (where it came from), its query and its upstream days."""

    label: str
    query: Query
    plan: list[dict[str, Any]]


@dataclass(frozen=True)
class Scored:
    reward: float
    passed: bool
    reason: str


@dataclass(frozen=True)
class Outcome:
    """One edit of one plan under one relation, in one format."""

    case: str
    format: str
    relation: str
    expect: str
    edit: str
    before: float
    after: float
    held: bool
    reason: str = ""


@dataclass
class AuditReport:
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)  # (relation, format): lower relations on failing plans
    cases: int = 0

    @property
    def broken(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.held]

    def counts(self) -> dict[tuple[str, str], tuple[int, int, int]]:
        """``(relation, format) -> (held, broken, skipped)``, in the order the relations ran."""
        out: dict[tuple[str, str], list[int]] = {}
        for o in self.outcomes:
            out.setdefault((o.relation, o.format), [0, 0, 0])[0 if o.held else 1] += 1
        for key, n in self.skipped.items():
            out.setdefault(key, [0, 0, 0])[2] += n
        return {k: (v[0], v[1], v[2]) for k, v in out.items()}

    def to_dict(self) -> dict[str, Any]:
        return {"cases": self.cases,
                "relations": [{"relation": r, "format": f, "held": h, "broken": b, "skipped": s}
                              for (r, f), (h, b, s) in self.counts().items()],
                "broken": [asdict(o) for o in self.broken]}


def score(scorer: Scorer, fmt: str, plan: Any, query: Query, step: int = 0) -> Scored:
    """The reward of a plan in ``fmt`` as the reward scores it (never raises on the plan)."""
    if fmt == "json":
        result = scorer.score(answer_text(plan), query, step)
        return Scored(float(result.reward), result.components.get("pass") == 1.0, result.reason)
    try:
        checked, _ = scorer.check(plan, query)
        components = {"schema": 1.0, **plugins.reward_components(checked, query)}
    except Exception as exc:  # noqa: BLE001 - an edit a check cannot read scores 0, as model output does
        return Scored(0.0, False, f"{type(exc).__name__}: {exc}"[:300])
    return Scored(float(scorer.weigh(components, step)), checked.final_pass, first_failure(checked)[1])


def audit(cases: Iterable[Case], scorer: Scorer, relations: Sequence[Relation], formats: Sequence[str] = FORMATS,
          progress: Callable[[int], None] | None = None) -> AuditReport:
    report = AuditReport()
    for k, case in enumerate(cases):
        report.cases += 1
        try:
            structured = from_upstream(case.plan)
        except (ValueError, KeyError, TypeError):
            structured = None  # not writable as a structured answer: audited as strings only
        subject = Subject(case.plan, case.query, scorer.store, structured)
        for fmt in formats:
            original = case.plan if fmt == "strings" else structured
            if original is None:
                continue
            base = score(scorer, fmt, original, case.query)
            for relation in relations:
                if relation.expect != KEEP and not base.passed:
                    report.skipped[(relation.name, fmt)] += 1
                    continue
                for what, edited in relation.edits(subject, fmt):
                    after = score(scorer, fmt, edited, case.query)
                    held = after.reward == base.reward if relation.expect == KEEP else after.reward < base.reward
                    reason = "" if held else after.reason if relation.expect == KEEP else \
                        f"the reward stayed {after.reward:g}"
                    report.outcomes.append(Outcome(case.label, fmt, relation.name, relation.expect, what,
                                                   base.reward, after.reward, held, reason))
        if progress is not None:
            progress(k + 1)
    return report


def render(report: AuditReport, relations: Sequence[Relation], console: Any, show: int = 20) -> None:
    from rich.table import Table

    counts = report.counts()
    table = Table(title=f"metamorphic relations over {report.cases} plan(s)")
    for column in ("relation", "the reward must", "format", "held", "broken", "skipped"):
        table.add_column(column)
    for relation in relations:
        for fmt in FORMATS:
            if (relation.name, fmt) not in counts:
                continue
            held, broken, skipped = counts[(relation.name, fmt)]
            table.add_row(f"{relation.name}: {relation.about}", "stay" if relation.expect == KEEP else "drop", fmt,
                          str(held), f"[red]{broken}[/red]" if broken else "0", str(skipped) if skipped else "")
    console.print(table)
    if not report.broken:
        console.print("[green]every relation holds[/green]")
        return
    if show <= 0:
        console.print(f"[red]broken: {len(report.broken)} edit(s)[/red] (--show N lists them, --json FILE writes all)")
        return
    breaks = Table(title=f"broken: {len(report.broken)} edit(s)" + (f", the first {show}" if len(report.broken) > show
                                                                   else ""))
    for column in ("plan", "format", "relation", "edit", "reward", "reason"):
        breaks.add_column(column, overflow="fold")
    for o in report.broken[:show]:
        breaks.add_row(o.case, o.format, o.relation, o.edit, f"{o.before:g} -> {o.after:g}", o.reason[:160])
    console.print(breaks)


# ------------------------------------------------------------------ the command


def add_audit_parser(sub: argparse._SubParsersAction) -> None:
    au = sub.add_parser("audit", help="hold the reward to metamorphic relations: edits that must keep it, edits "
                                      "that must lower it (exits 1 when one breaks)")
    au.add_argument("--plans", help="plans JSONL ({\"plan\": ...} per line, paired with --queries by line order; a "
                                    "plan as upstream days, a structured plan or answer text); default: the gold "
                                    "plans of --queries")
    au.add_argument("--queries", help="the queries (TravelPlanner CSV/JSONL); default: the sample world's")
    au.add_argument("--database", help="TravelPlanner database directory or built store; default: the sample world")
    au.add_argument("--mode", choices=("official", "strict"), default="strict")
    au.add_argument("--formats", default=",".join(FORMATS), help="answer formats to audit (strings, json)")
    au.add_argument("--relations", help="comma-separated relation names (default: every relation loaded)")
    au.add_argument("--show", type=int, default=20, help="how many broken edits to print")
    au.add_argument("--json", help="write the whole report as JSON to this file")
    au.set_defaults(func=run_audit)


def _cases(args: argparse.Namespace) -> list[Case]:
    from planshape.validators.travelplanner import sample
    from planshape.validators.travelplanner.evaluation.submission import read_submission
    from planshape.validators.travelplanner.query import gold_plan, read_records

    records = read_records(args.queries or sample.sample_queries())
    queries = [Query.from_record(r) for r in records]
    if args.plans is None and args.queries is not None:
        return [Case(f"gold {k}", q, gold_plan(r)[: q.days]) for k, (q, r) in enumerate(zip(queries, records,
                                                                                             strict=True))]
    submitted = read_submission(args.plans or sample.sample_plans(), plugins.extract_answer)
    if len(submitted) != len(queries):
        raise SystemExit(f"planshape audit: {len(submitted)} plans but {len(queries)} queries (paired by line order)")
    return [Case(f"line {k}", q, s.plan[: q.days]) for k, (q, s) in enumerate(zip(queries, submitted, strict=True))
            if isinstance(s.plan, list)]


def run_audit(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner import sample
    from planshape.validators.travelplanner.store.sqlite import open_store
    from rich.console import Console

    console = Console()
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    if unknown := [f for f in formats if f not in FORMATS]:
        raise SystemExit(f"planshape audit: unknown format(s) {unknown}; choose from {list(FORMATS)}")
    relations = plugins.audit_relations()
    if args.relations:
        wanted = [n.strip() for n in args.relations.split(",") if n.strip()]
        known = {r.name for r in relations}
        if missing := [n for n in wanted if n not in known]:
            raise SystemExit(f"planshape audit: unknown relation(s) {missing}; loaded: {sorted(known)}")
        relations = tuple(r for r in relations if r.name in wanted)
    store = open_store(str(args.database or sample.sample_database()))
    cases = _cases(args)
    report = audit(cases, Scorer(store, args.mode, "stage1"), relations, formats)
    render(report, relations, console, args.show)
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
        console.print(f"report written to {args.json}")
    return 1 if report.broken else 0
