"""The OpenRLHF adapter suite: the real ``openrlhf==0.11.2`` (installed by scripts/setup-openrlhf.sh with
``--no-deps``), with stand-ins only for its GPU-only imports (``stubs/gpu_modules.py``), put in place before
anything imports OpenRLHF. No ``__init__.py`` here: this folder must not become a package named ``openrlhf``,
and the wheel's own top-level ``tests`` package must not be confused with ours."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
STUBS = HERE / "stubs" / "gpu_modules.py"
EXAMPLES = HERE.parents[2] / "adapters" / "openrlhf" / "examples"


def _install_stubs() -> None:
    spec = importlib.util.spec_from_file_location("planshape_test_gpu_stubs", STUBS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.install()


if importlib.util.find_spec("openrlhf") is not None:  # elsewhere the suite is one skip (tests/adapters/conftest.py)
    _install_stubs()

from planshape.validators.travelplanner import sample  # noqa: E402 - after the stand-ins


def write_config(path: Path, **fields) -> str:
    """A planshape config file over the bundled sample world."""
    config = {"database": "sample", "schedule": "curriculum-8b", "estimator": "planpo", "total_steps": 500, **fields}
    path.write_text(json.dumps(config))
    return str(path)


@pytest.fixture
def curriculum_config(tmp_path) -> str:
    return write_config(tmp_path / "planshape.json")


@pytest.fixture
def stage1_config(tmp_path) -> str:
    return write_config(tmp_path / "planshape-stage1.json", schedule="stage1")


@pytest.fixture(scope="session")
def queries() -> list[dict]:
    return [json.loads(line) for line in sample.sample_queries().read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def plans() -> list[dict]:
    return [json.loads(line) for line in sample.sample_plans().read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def passing(queries, plans) -> tuple[str, dict]:
    """A structured answer that passes every check, and its query."""
    plan = plans[6]
    return f"Done.\n<answer>{json.dumps(plan['plan'])}</answer>", queries[plan["idx"]]


@pytest.fixture(scope="session")
def over_budget(passing) -> tuple[str, dict]:
    """The same answer against a query with a tiny budget: it fails the cost check only (partial credit)."""
    answer, query = passing
    return answer, {**query, "budget": 10}


@pytest.fixture(scope="session")
def tokenizer():
    """A real byte-level HF tokenizer built in-process (every text round-trips; nothing is downloaded)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    vocab["<pad>"] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>")
