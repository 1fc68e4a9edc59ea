"""``planshape explain``: one rollout's verdicts, with each claim and the sandbox rows it was compared with.

The checking and the tables are ``planshape.validators.travelplanner.evaluation.explain``; this module reads the
command line (a rollouts file row, or an answer file and a query file) and prints a table or JSON.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console


def add_explain_parser(sub: argparse._SubParsersAction) -> None:
    ex = sub.add_parser("explain", help="every check's verdict on one rollout, with the sandbox rows each "
                                        "claim of the plan was compared with")
    ex.add_argument("rollouts", nargs="?", help="rollouts JSONL (text + query per line); default: the sample "
                                                "world's (unless --answer is given)")
    ex.add_argument("--index", type=int, default=0, help="which line of the rollouts file (from 0)")
    ex.add_argument("--answer", help="instead of a rollout: a file with the model's text or a JSON plan "
                                     "(structured or upstream)")
    ex.add_argument("--query", help="the query record (JSON file) for --answer")
    ex.add_argument("--database", help="TravelPlanner database directory or built store; default: the sample world")
    ex.add_argument("--mode", choices=("official", "strict"), default="strict")
    ex.add_argument("--json", action="store_true", help="print the explanation as JSON instead of tables")
    ex.set_defaults(func=run_explain)


def _rollout(args: argparse.Namespace) -> tuple[Any, Any]:
    """(answer, query) from the command line: model text, or a plan file's plan."""
    from planshape.validators.travelplanner import sample
    from planshape.validators.travelplanner.plan.answer import wrap_answer

    from .rollout_file import read_rollouts

    if args.answer is not None:
        if args.query is None:
            raise ValueError("--answer needs --query (a JSON file holding the query record)")
        text = Path(args.answer).read_text(encoding="utf-8")
        try:
            parsed: Any = json.loads(text)
        except ValueError:
            parsed = None  # model text: read as the reward reads it
        query = json.loads(Path(args.query).read_text(encoding="utf-8"))
        # An upstream plan (day dicts) is checked as parsed; a structured plan goes to the gate as written (a
        # repeated key is refused there, as by the reward); anything else is the model's text.
        if isinstance(parsed, list) and parsed and all(isinstance(d, dict) and "current_city" in d for d in parsed):
            return parsed, query
        return (wrap_answer(text) if isinstance(parsed, (list, dict)) else text), query
    rows = read_rollouts(args.rollouts or sample.sample_dir() / "rollouts.jsonl")
    if not 0 <= args.index < len(rows):
        raise ValueError(f"--index {args.index}: the rollouts file has {len(rows)} lines")
    return rows[args.index]["text"], rows[args.index]["query"]


def run_explain(args: argparse.Namespace) -> int:
    from planshape.validators.travelplanner.evaluation.explain import render

    from .facade import data_shaper

    answer, query = _rollout(args)
    shaper = data_shaper({"database": args.database or "sample", "mode": args.mode})
    explanation = shaper.explain(answer, query)
    if args.json:
        print(json.dumps(explanation.to_dict(), indent=2))
    else:
        render(explanation, Console())
    return 0
