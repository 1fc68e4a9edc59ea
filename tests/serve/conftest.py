"""One reward server for the whole serve suite (starting one costs seconds), and the 45 train queries' data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from planshape.shaping.facade import gold_answer, query_json

from tests.serve.server import QWEN_EOS, Server, chat_prompt
from tests.stall_probe import stall_plugin  # noqa: F401 - a fixture

pytest.importorskip("aiohttp", reason="planshape serve needs the serve extra")
pytest.importorskip("prometheus_client", reason="planshape serve needs the serve extra")

SCHEDULE = "curriculum-8b"  # staged: the step decides the weights, so a wrong step shows in the reward
MAX_SAMPLES = 64
MAX_BODY_MB = 2


@dataclass
class Gold:
    config: dict[str, Any]
    records: list[dict[str, Any]]
    labels: list[str]  # what planshape's OpenRLHF data step writes (the facade's query_json)
    answers: list[str]  # the gold plans as a model's answers
    prompts: list[str]  # the chat-templated prompts
    messages: list[list[dict[str, str]]]

    def query(self, i: int, answer: str | None = None) -> str:
        """OpenRLHF's ``query``: prompt and response decoded with special tokens (it ends in the EOS text)."""
        return self.prompts[i] + (self.answers[i] if answer is None else answer) + QWEN_EOS


@pytest.fixture(scope="session")
def gold(shared_dir, train_records) -> Gold:
    from planshape.shaping import Shaper

    config = {"database": str(shared_dir / "database"), "estimator": "grpo", "mode": "strict",
              "schedule": SCHEDULE, "total_steps": 500}
    shaper = Shaper.from_mapping(config)
    messages = [shaper.messages(r, include_tools=True) for r in train_records]
    return Gold(config, train_records, [query_json(r) for r in train_records],
                [gold_answer(r) for r in train_records], [chat_prompt(m) for m in messages], messages)


@pytest.fixture(scope="session")
def shaper(gold):
    """The in-process facade on the server's config: what every served score must equal."""
    from planshape.shaping import Shaper

    return Shaper.from_mapping(gold.config)


@pytest.fixture(scope="session")
def server(gold, tmp_path_factory):
    """2 scoring workers, the staged schedule, requests without a step scored at step 0."""
    srv = Server(gold.config, tmp_path_factory.mktemp("server"), "--workers", "2", "--step", "0",
                 "--max-samples", str(MAX_SAMPLES), "--max-body-mb", str(MAX_BODY_MB))
    yield srv
    srv.stop()
