"""The slowest known input of every entry point that takes model output (or user input), and its time.

    python benchmarks/bench_worst_case.py [--database DIR] [--train CSV] [--repeat N] [--only gate,tools,...]

Each input is a crash or stall found by fuzzing or by hand (degenerate JSON at the size cap, quadratic
regex inputs, huge argument lists...). Every input is timed (best of ``--repeat`` single calls); per entry
point the slowest is printed with its time. An input that raises is a bug and is printed as such.
Target (docs/architecture.md): any single ``Scorer.score`` at the answer-size cap costs at most 50 ms. Exits 1 when
an input raises or the target is missed.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from planshape.shaping.reward import Scorer
from planshape.validators.travelplanner.agent.calculator import CalculatorError, calculate
from planshape.validators.travelplanner.agent.tools import ToolBox
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.plan.answer import extract_answer
from planshape.validators.travelplanner.plan.formats import MAX_ANSWER_CHARS, gate
from planshape.validators.travelplanner.query import Query, read_records
from planshape.validators.travelplanner.store.database import load_database

SHARED = Path(__file__).resolve().parents[2] / "shared" / "travelplanner"
SCORE_TARGET_S = 0.050


def _fill(unit: str, limit: int = MAX_ANSWER_CHARS - 20) -> str:
    """A JSON list of ``unit`` repeated up to just under the cap."""
    return "[" + ",".join([unit] * ((limit - 2) // (len(unit) + 1))) + "]"


def _place(name: str, city: str) -> dict[str, str]:
    return {"name": name, "city": city}


def _big_valid_plan(query: Query, limit: int = MAX_ANSWER_CHARS - 100) -> str:
    """A schema-valid plan as close to the cap as fits: 30 days, full attraction lists, 300-char names."""
    city = query.dest
    days = []
    for d in range(1, 31):
        days.append({
            "days": d, "city": {"stay": city}, "transportation": None,
            "breakfast": _place(f"B{d}-" + "x" * 200, city),
            "attraction": [_place(f"A{d}-{k}-" + "y" * 200, city) for k in range(20)],
            "lunch": _place(f"L{d}-" + "x" * 200, city), "dinner": _place(f"D{d}-" + "x" * 200, city),
            "accommodation": _place(f"H{d}-" + "x" * 200, city),
        })
    while len(text := json.dumps(days)) > limit:
        days[-1]["attraction"].pop() if days[-1]["attraction"] else days.pop()
    return text


def _repeat_plan(query: Query) -> str:
    """Schema-valid, 7 checked days, every meal and attraction the same place (the repeat check's list)."""
    place = _place("Subway", query.dest)
    day = {"days": 1, "city": {"stay": query.dest}, "transportation": None, "breakfast": place,
           "attraction": [place] * 20, "lunch": place, "dinner": place, "accommodation": place}
    days = [dict(day, days=d) for d in range(1, 31)]
    return json.dumps(days)


def gate_inputs() -> dict[str, Any]:
    deep = "[" * 50_000 + "]" * 50_000
    return {
        "[{},{},...] at the cap": _fill("{}"),
        "[0,0,...] at the cap": _fill("0"),
        "[[],[],...] at the cap": _fill("[]"),
        '["",...] at the cap': _fill('""'),
        "[null,...] at the cap": _fill("null"),
        "100,000-deep list": deep,
        "400-digit cost": json.dumps([{"days": 1, "city": {"stay": "A"}, "transportation": {
            "mode": "taxi", "from": "A", "to": "B", "cost": 0}, "breakfast": None, "attraction": [],
            "lunch": None, "dinner": None, "accommodation": None}]).replace('"cost": 0', '"cost": ' + "9" * 400),
        "1e400 cost": json.dumps([{"days": 1, "city": {"stay": "A"}, "transportation": {
            "mode": "taxi", "from": "A", "to": "B", "cost": 0}, "breakfast": None, "attraction": [],
            "lunch": None, "dinner": None, "accommodation": None}]).replace('"cost": 0', '"cost": 1e400'),
        "30 days of 3,000 attractions": json.dumps([{"days": 1, "attraction": [{}] * 1500}] * 30)[:MAX_ANSWER_CHARS],
        "one day, one 99,000-char field": json.dumps([{"days": 1, "breakfast": {"name": "x" * 99_000}}]),
        "dict with 8,000 keys": json.dumps({f"k{i}": 0 for i in range(8000)}),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", default=str(SHARED / "database"))
    ap.add_argument("--train", default=str(SHARED / "train.csv"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated entry points to run (e.g. gate,tools); default all")
    args = ap.parse_args()
    store = load_database(args.database)
    queries = [Query.from_record(r) for r in read_records(args.train)]
    query = max(queries, key=lambda q: (q.days, q.local_constraint.count()))
    scorer = Scorer(store, "strict")
    tools = ToolBox(store)
    biggest_city = max(store.city_state, key=lambda c: len(store.in_city("restaurants", c)))

    cases: dict[str, dict[str, Callable[[], Any]]] = {"gate": {}, "Scorer.score": {}, "check_plan": {},
                                                      "tools": {}, "calculator": {}, "Query": {},
                                                      "answer block": {}}
    for name, text in gate_inputs().items():
        cases["gate"][name] = lambda text=text: gate(text)
        answer = f"<answer>{text}</answer>"
        if len(text) <= MAX_ANSWER_CHARS:
            cases["Scorer.score"][name] = lambda answer=answer: scorer.score(answer, query)
    for name, text in {"schema-valid plan at the cap": _big_valid_plan(query),
                       "every place the same (repeat list)": _repeat_plan(query)}.items():
        assert gate(text).ok, gate(text).reason
        cases["gate"][name] = lambda text=text: gate(text)
        for mode in ("strict", "official"):
            s = scorer if mode == "strict" else Scorer(store, mode)
            cases["Scorer.score"][f"{name} ({mode})"] = lambda text=text, s=s: s.score(f"<answer>{text}</answer>",
                                                                                       query)

    upstream = {
        'current_city "from " * 20000': {"current_city": "from " * 20_000},
        'current_city "(" * 100000': {"current_city": "(" * 100_000},
        'transportation "from " * 20000': {"transportation": "from " * 20_000},
        'breakfast ", " * 50000': {"breakfast": ", " * 50_000},
        'attraction "a, B;" * 20000': {"attraction": "a, B;" * 20_000},
        "attraction 5,000 repeats": {"attraction": f"Subway, {query.dest};" * 5_000},
    }
    base = {"days": 1, "current_city": query.dest, "transportation": "-", "breakfast": "-", "attraction": "-",
            "lunch": "-", "dinner": "-", "accommodation": "-"}
    for name, fields in upstream.items():
        plan = [dict(base, days=d, **fields) for d in range(1, query.days + 1)]
        for mode in ("official", "strict"):
            cases["check_plan"][f"{name} ({mode})"] = lambda plan=plan, mode=mode: check_plan(plan, query, store, mode)
    plan_array = np.array([dict(base, days=d) for d in range(1, query.days + 1)], dtype=object)
    cases["check_plan"]["plan as a numpy array"] = lambda: check_plan(plan_array, query, store, "strict")

    cases["tools"] = {
        "12,000 unknown argument names": lambda: tools.call("calculator", {f"arg{i}-" + "z" * 30: 1
                                                                            for i in range(12_000)}),
        "tool name is a list": lambda: tools.call(["calculator"], {"expression": "1"}),
        "tool name is a 1 MB string": lambda: tools.call("x" * 1_000_000, {}),
        f"restaurants of {biggest_city}": lambda: tools.call("search_restaurants", {"city": biggest_city}),
        "800-char nested JSON arguments": lambda: tools.call("calculator", "[" * 400 + "]" * 400),
        "calculator max(5)": lambda: tools.call("calculator", {"expression": "max(5)"}),
    }

    def calc(expr: str) -> Callable[[], Any]:
        def run() -> Any:
            try:
                return calculate(expr)
            except CalculatorError as exc:
                return str(exc)
        return run

    cases["calculator"] = {
        "300 chars of 1+1+...": calc("+".join(["1"] * 150)),
        "max nesting, then deeper": calc("(" * 150 + "1" + ")" * 150),
        "300-digit number": calc("9" * 300),
        "unary minus chain": calc("-" * 299 + "1"),
        "max(5)": calc("max(5)"),
        "nested max calls": calc("max(" * 40 + "1" + ")" * 40),
    }
    for n in (8_192, 32 * 8_192):  # a quadratic scan grows 1,024-fold between the two (tool calls: bench_tool_calls)
        answers = "<answer>[]</answer>" * n + "<answer>" * n
        cases["answer block"][f"{n:,} blocks, then {n:,} unclosed tags"] = lambda t=answers: extract_answer(t)

    record = query.model_dump(by_alias=True)
    cases["Query"] = {
        "date literal nested 10,000 deep": lambda: _query(dict(record, date="[" * 10_000 + "]" * 10_000)),
        "1 MB query text": lambda: _query(dict(record, query="q" * 1_000_000)),
        "non-mapping record": lambda: _query(["not", "a", "record"]),
        "NaN budget": lambda: _query(dict(record, budget=float("nan"))),
    }

    failed = False
    print(f"query: {query.org} -> {query.dest}, {query.days} days; store: {args.database}; best of {args.repeat}")
    only = {e.strip() for e in args.only.split(",") if e.strip()}
    for entry, inputs in cases.items():
        if only and entry not in only:
            continue
        timings = []
        for name, fn in inputs.items():
            best, outcome = float("inf"), "ok"
            for _ in range(args.repeat):
                start = time.perf_counter()
                try:
                    fn()
                except Exception as exc:  # noqa: BLE001 - the benchmark reports crashes instead of stopping
                    outcome = f"RAISES {type(exc).__name__}"
                best = min(best, time.perf_counter() - start)
            failed |= outcome != "ok"
            timings.append((best, name, outcome))
        print(f"\n== {entry}")
        for best, name, outcome in sorted(timings, reverse=True):
            print(f"  {1e3 * best:9.2f} ms  {name}" + ("" if outcome == "ok" else f"  [{outcome}]"))
        worst = max(timings)
        print(f"  slowest: {worst[1]} ({1e3 * worst[0]:.2f} ms)")
        if entry == "Scorer.score":
            met = worst[0] <= SCORE_TARGET_S
            failed |= not met
            print(f"  target <= {1e3 * SCORE_TARGET_S:.0f} ms: {'met' if met else 'MISSED'}")
    return 1 if failed else 0


def _query(record: Any) -> Any:
    """Query input is configuration: a clear ValueError is the correct outcome, anything else raises."""
    try:
        return Query.from_record(record)
    except ValueError as exc:
        return str(exc)


if __name__ == "__main__":
    raise SystemExit(main())
