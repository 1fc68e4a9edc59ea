"""The command-line shapes every adapter's commands share: ``prepare-data QUERIES... -o OUT [--config FILE]
[--val-out FILE] [--val-size N] [--seed S]`` and ``check --config FILE``, and the data step's ``Shaper``."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from ..splits import PLANNER_R1_VAL_SIZE
from .shaper import Shaper

DATA_CONFIG = '{"database": "sample"}'
"""A data step's default config: the rows depend on the prompt alone, not on the database or the estimator."""


def add_split_arguments(parser: argparse.ArgumentParser, out_flag: str | None = None) -> None:
    """The flags of Planner-R1's 180/45 re-split (``Shaper.split_queries``), the same in every adapter's data step.
    ``out_flag``: where the validation rows go, for a data step that splits only when asked."""
    if out_flag is not None:
        parser.add_argument(out_flag, help="also split off validation rows (Planner-R1's re-split, stratified by "
                            "level) and write them here")
    parser.add_argument("--val-size", type=int, default=PLANNER_R1_VAL_SIZE,
                        help=f"validation rows, stratified by level (default {PLANNER_R1_VAL_SIZE})")
    parser.add_argument("--seed", type=int, default=0, help="the split's seed")


def add_data_arguments(parser: argparse.ArgumentParser, out_help: str, val_out: bool = True) -> None:
    """The one argument shape of every adapter's ``prepare-data``: ``QUERIES... -o OUT [--config FILE]
    [--val-out FILE] [--val-size N] [--seed S]``."""
    parser.add_argument("queries", nargs="+", help="TravelPlanner query files (HF CSV/JSONL/JSON), merged; 'sample' "
                        "for the bundled sample world's queries")
    parser.add_argument("-o", "--out", required=True, help=out_help)
    parser.add_argument("--config", default=DATA_CONFIG, help="the run's planshape config (file or inline "
                        "YAML/JSON); the rows depend only on its prompt (default: the sample world)")
    add_split_arguments(parser, "--val-out" if val_out else None)


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--config`` of every adapter's ``check`` (the planshape config the run will use)."""
    parser.add_argument("--config", required=True, help="the run's planshape config (file or inline YAML/JSON)")


def print_written(written: Mapping[str, Mapping[str, Any]], load: str) -> None:
    """What a ``prepare-data`` wrote (``{split: {"path", "rows"}}``, every adapter's ``data.prepare_data``), and
    how the trainer loads it."""
    for split, info in written.items():
        print(f"{split}: {info['rows']} rows -> {info['path']}")
    print(f"load: {load}")


def data_shaper(config: Any) -> Shaper:
    """The ``Shaper`` of a data step: the run's config, validated (what only estimating needs, such as
    ``total_steps``, is not asked: prompts do not depend on it)."""
    return Shaper.from_mapping(config)
