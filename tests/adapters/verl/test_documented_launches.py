"""Every VERL launch the documents show, taken as written: the override blocks (marked ``gpu``: they need a
cluster) of README.md, docs/ and adapters/verl/examples/README.md that set a reward, the complete reward routes of
the examples README's table, and the one the prose derives (``algorithm.adv_estimator=grpo``, staged GRPO).

* As written, each names values the text says are the user's to fill in (``FILL_IN``: the database directory,
  a server's address and token file): the preflight refuses each launch, naming such a value (``planshape verl
  check``, and, where VERL builds the reward at start-up, the reward manager itself), before any GPU is used.
* Filled in (those values replaced, nothing added), VERL composes it, builds the reward it names, and that reward
  gives each of the 45 gold plans, in a transcript with a real tool round, the stage's maximum at the first
  training step; where it names ``planpo``, VERL's ``compute_advantage`` runs the estimator it configures. What a
  launch leaves to the user with ``...`` (model, data) is VERL's default here.
"""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import os
import re
import secrets
import shlex

import numpy as np
import torch
from planshape.adapters.verl.check import check_launch, compose
from planshape.shaping.facade import ConfigError, Shaper
from verl import DataProto
from verl.trainer.ppo.reward import load_reward_manager

from tests.serve.server import Server

from ...docs_blocks import ROOT, blocks, shell_lines
from .conftest import EXAMPLES
from .helpers import gold_after_flight_search, response_ids, reward_row

DATABASE, SERVER, TOKEN = "/data/travelplanner/database", "http://cpu-node-0:8000", "/shared/planshape.token"
FILL_IN = (DATABASE, SERVER, TOKEN)  # what the documents tell the user to replace with their own
OVERRIDE = re.compile(r"^\+{0,2}[a-z_][\w.]*=")  # a Hydra override (env assignments are upper case)
TABLE = "adapters/verl/examples/README.md"


def _overrides(text: str) -> list[str]:
    words = shlex.split(text.replace("$EXAMPLES", str(EXAMPLES)), comments=True)  # EXAMPLES: the doc's definition
    return [w for w in words if OVERRIDE.match(w)]


def _documented() -> dict[str, list[str]]:
    """Each documented launch's overrides, by where it is (file:line)."""
    out = {}
    for block in blocks():
        if block.mark != "gpu" or block.lang not in ("bash", "sh"):
            continue
        found = _overrides("\n".join(line for line in shell_lines(block)
                                     if not line.startswith(("export ", "EXAMPLES="))))
        if any(o.startswith("reward.") for o in found):
            out[block.where] = found
            if "algorithm.adv_estimator=planpo" in found and "trainer.v1.trainer_mode=planshape" in found:
                out[f"{block.where} with algorithm.adv_estimator=grpo"] = [  # the prose's staged-reward GRPO
                    o.replace("=planpo", "=grpo") if o == "algorithm.adv_estimator=planpo" else o for o in found]
    text = (ROOT / TABLE).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("| reward"):  # the table's reward routes: the overrides of the setting column
            found = [o for span in re.findall(r"`([^`]+)`", line.split(" | ")[1]) for o in _overrides(span)]
            if any(DATABASE in o for o in found):  # a whole route, not a piece of one (the block is elsewhere)
                out[f"{TABLE}:{number}"] = found
    return out


DOCUMENTED = _documented()


def test_the_documents_show_each_reward_route():
    routes = list(DOCUMENTED.values())
    assert len(routes) >= 6, sorted(DOCUMENTED)
    for path in ("reward.reward_manager.name=planshape", "reward.custom_reward_function.path=pkg://planshape."
                 "adapters.verl.reward", "reward.custom_reward_function.path=pkg://planshape.adapters.verl.remote"):
        assert any(path in r for r in routes), path
    assert all(any(value in o for value in FILL_IN for o in r) for r in routes)  # each names what to fill in


@pytest.fixture(scope="module")
def fill_in(shared_dir, tmp_path_factory):
    """What a user fills in: the database, and a planshape server (on 127.0.0.1, with a token) serving it."""
    folder = tmp_path_factory.mktemp("served")
    token = folder / "token"
    token.write_text(secrets.token_urlsafe(24))
    os.chmod(token, 0o600)
    database = str(shared_dir / "database")
    srv = Server({"database": database}, folder, "--workers", "1", "--token-file", str(token))
    yield {DATABASE: database, SERVER: srv.url, TOKEN: str(token)}
    srv.stop()


def _filled(overrides: list[str], values: dict[str, str]) -> list[str]:
    out = []
    for override in overrides:
        for placeholder, value in values.items():
            override = override.replace(placeholder, value)
        out.append(override)
    return out


@pytest.mark.parametrize("where", sorted(DOCUMENTED))
def test_as_written_the_preflight_refuses_the_values_to_fill_in(where, monkeypatch):
    monkeypatch.delenv("PLANSHAPE_DATABASE", raising=False)
    monkeypatch.delenv("PLANSHAPE_CONFIG", raising=False)
    report = check_launch(DOCUMENTED[where])
    assert any(value in e for e in report.errors for value in FILL_IN), report.errors
    cfg = compose(DOCUMENTED[where])
    if cfg.reward.reward_manager.name == "planshape":  # built when the reward workers start
        with pytest.raises(ConfigError, match=f"'{DATABASE}' does not exist"):
            load_reward_manager(cfg, None)


@pytest.fixture(scope="module")
def gold_rows(shared_dir, train_records, tokenizer):
    """The 45 gold plans, each the final turn after a real flight search over the database (as VERL's reward
    loop hands a transcript to the reward: prompt and response ids, the query as ground truth)."""
    tools = Shaper.from_mapping({"database": str(shared_dir / "database")}).tools()
    prompt = tokenizer.encode("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    rows = []
    for record in train_records:
        truth, turns = gold_after_flight_search(record, tools)
        ids, mask = response_ids(tokenizer, turns)
        rows.append((prompt, ids, mask, truth))
    return rows


@pytest.mark.parametrize("where", sorted(DOCUMENTED))
def test_filled_in_the_reward_scores_every_gold_plan_at_the_stages_maximum(where, fill_in, gold_rows, tokenizer,
                                                                           monkeypatch):
    monkeypatch.setenv("PLANSHAPE_DATABASE", fill_in[DATABASE])  # what the launches put in the workers' env
    filled = _filled(DOCUMENTED[where], fill_in)
    report = check_launch(filled)
    assert [e for e in report.errors if not e.startswith("data.")] == [], report.errors  # data: the user's `...`
    cfg = compose(filled)
    manager = load_reward_manager(cfg, tokenizer)
    scored = []
    for prompt, ids, _, query in gold_rows:
        data = reward_row(tokenizer, prompt, ids, {"data_source": "travelplanner", "extra_info": {},
                                                  "reward_model": {"ground_truth": query}, "global_steps": 1})
        scored.append(manager.loop.run_until_complete(manager.run_single(data)))
    info = [s["reward_extra_info"] for s in scored]
    top = max(s["reward_score"] for s in scored)
    assert top > 0 and [s["reward_score"] for s in scored] == [top] * len(gold_rows)
    assert [i["acc"] for i in info] == [1.0] * len(gold_rows) and {i["failure"] for i in info} == {""}
    if cfg.algorithm.adv_estimator == "planpo":  # the estimator this launch configures, as VERL calls it
        from verl.trainer.ppo.ray_trainer import compute_advantage

        width = max(len(ids) for _, ids, _, _ in gold_rows)
        mask = torch.zeros(len(gold_rows), width)
        rewards = torch.zeros(len(gold_rows), width)
        for row, (_, ids, turn_mask, _) in enumerate(gold_rows):
            mask[row, :len(ids)] = torch.tensor(turn_mask, dtype=torch.float32)
            rewards[row, len(ids) - 1] = scored[row]["reward_score"]
        batch = DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                                    non_tensors={"uid": np.array([f"q{i // 5}" for i in range(len(gold_rows))],
                                                                 dtype=object)})
        out = compute_advantage(batch, adv_estimator="planpo", config=cfg.algorithm)
        assert torch.isfinite(out.batch["advantages"]).all()
        assert (out.batch["advantages"][mask == 0] == 0).all()
