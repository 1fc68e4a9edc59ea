"""Fixtures of the TRL adapter suite: the sample world, a tiny tokenizer trained in-process, offline settings.

Runs in .venv-trl (scripts/setup-trl.sh); elsewhere the whole suite skips (``tests/adapters/conftest.py``).
Nothing is downloaded.
"""

from __future__ import annotations

import json
import os

import pytest

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "HF_DATASETS_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "TRL_EXPERIMENTAL_SILENCE": "1", "TOKENIZERS_PARALLELISM": "false",
           "WANDB_DISABLED": "true"}
os.environ.update(OFFLINE)


@pytest.fixture(scope="session")
def sample_rollouts() -> list[dict]:
    """The sample world's scored rollouts: per query, two passing answers, one failing, one without answer."""
    from planshape.validators.travelplanner.sample import sample_dir

    with open(sample_dir() / "rollouts.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@pytest.fixture(scope="session")
def sample_records(sample_rollouts) -> list[dict]:
    """The two queries of the sample rollouts, in order."""
    seen: dict[str, dict] = {}
    for row in sample_rollouts:
        seen.setdefault(row["group"], row["query"])
    return list(seen.values())


@pytest.fixture(scope="session")
def shaper():
    from planshape.shaping.facade import Shaper

    return Shaper.from_mapping({"database": "sample", "total_steps": 2})


@pytest.fixture(scope="session")
def tokenizer(shaper, sample_records, sample_rollouts):
    """A byte-level BPE trained on the prompts, tool schemas and answers it will see."""
    from planshape.adapters.trl.tiny import tiny_tokenizer

    corpus = [m["content"] for r in sample_records for m in shaper.messages(r)]
    corpus += [json.dumps(s) for s in shaper.tool_schemas] + [r["text"] for r in sample_rollouts]
    return tiny_tokenizer(corpus)
