"""``planshape trl ...``: prepare a dataset, check the TRL install and a config before launching a run.

Nothing here imports TRL at module level: ``planshape`` lists this group even where TRL is not installed.
"""

from __future__ import annotations

import argparse
import json

from planshape.shaping.facade import Shaper, add_split_arguments, as_mapping, hookimpl

DEFAULT_SHAPING = '{"database": "sample"}'


def _prepare_data(args: argparse.Namespace) -> int:
    from .data import write_jsonl

    shaper = Shaper.from_mapping({"total_steps": 1, **as_mapping(args.shaping)})  # prompts ignore the run's length
    records = shaper.read_queries(args.input)
    records = records[: args.limit] if args.limit else records
    if args.val_output:
        records, val = shaper.split_queries(records, args.val_size, args.seed)
        print(f"{write_jsonl(val, shaper, args.val_output)} validation rows written to {args.val_output}")
    count = write_jsonl(records, shaper, args.output)
    print(f"{count} rows written to {args.output} (prompt {shaper.prompt_version}); "
          f"load with datasets.load_dataset('json', data_files='{args.output}')")
    return 0


def _check(args: argparse.Namespace) -> int:
    from .check import check_launch
    from .version import UnsupportedTRL

    try:
        report = check_launch(args.shaping, args.max_steps)
    except UnsupportedTRL as exc:
        print(f"planshape trl check: {exc}")
        return 2
    print(json.dumps(report, indent=2, default=str))
    return 0


@hookimpl
def planshape_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """The ``trl`` command group."""
    group = subparsers.add_parser("trl", help="TRL GRPOTrainer adapter: dataset preparation and set-up checks")
    commands = group.add_subparsers(dest="trl_command", required=True)

    prep = commands.add_parser("prepare-data", help="TravelPlanner CSV/JSONL -> GRPOTrainer dataset rows (JSONL)")
    prep.add_argument("--input", required=True, help="TravelPlanner queries, HF CSV/JSONL layout")
    prep.add_argument("--output", required=True, help="JSONL file to write (columns: prompt, planshape_query)")
    prep.add_argument("--shaping", default=DEFAULT_SHAPING, help="planshape config file or inline YAML/JSON")
    prep.add_argument("--limit", type=int, default=None, help="keep only the first LIMIT queries")
    add_split_arguments(prep, "--val-output")
    prep.set_defaults(func=_prepare_data)

    check = commands.add_parser("check", help="check the installed TRL and a planshape config; show what will run")
    check.add_argument("--shaping", default=DEFAULT_SHAPING, help="planshape config file or inline YAML/JSON")
    check.add_argument("--max-steps", type=int, default=0, help="the run's optimizer steps (PlanPO's α horizon)")
    check.set_defaults(func=_check)
