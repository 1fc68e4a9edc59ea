"""The TRL reward over a real ``planshape serve`` on 127.0.0.1: an async ``reward_funcs`` entry that TRL
awaits, the same rewards and logged metrics as the in-process ``PlanshapeReward``, and a server that goes away
costing failing scores with reasons, never the step."""

from __future__ import annotations

import asyncio
import json
import pickle

import pytest
from transformers import TrainerState

from tests.serve.server import Server, with_token

from .scripted import scripted
from .test_trainer import G, make_trainer


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    srv, token = with_token({"database": "sample", "total_steps": 2}, tmp_path_factory.mktemp("served"))
    yield srv, token
    srv.stop()


def _calls(rollouts):
    texts = [r["text"] for r in rollouts]
    return dict(prompts=[""] * len(texts), completions=texts,
                planshape_query=[json.dumps(r["query"]) for r in rollouts], trainer_state=TrainerState(global_step=1))


def test_trl_awaits_it_and_it_scores_as_in_process(served, shaper, sample_rollouts):
    from planshape.adapters.trl.remote import RemotePlanshapeReward
    from planshape.adapters.trl.reward import PlanshapeReward
    from trl.trainer.utils import is_async_callable

    srv, token = served
    remote = RemotePlanshapeReward(srv.url, token)
    assert is_async_callable(remote) and remote.__name__ == "planshape"
    logged: dict[str, list] = {"remote": [], "local": []}
    extra: dict[str, list] = {"remote": [], "local": []}
    got = asyncio.run(remote(**_calls(sample_rollouts), log_metric=lambda k, v: logged["remote"].append((k, v)),
                             log_extra=lambda k, v: extra["remote"].append((k, v))))
    want = PlanshapeReward(shaper)(**_calls(sample_rollouts), log_metric=lambda k, v: logged["local"].append((k, v)),
                                   log_extra=lambda k, v: extra["local"].append((k, v)))
    assert got == want and got.count(5.0) == 4
    assert dict(logged["remote"]) == pytest.approx(dict(logged["local"]))
    assert [k for k, _ in logged["remote"]] == list(shaper.metric_names)
    assert extra["remote"] == extra["local"]
    clone = pickle.loads(pickle.dumps(remote))
    assert asyncio.run(clone(**_calls(sample_rollouts[:2]))) == want[:2]


def test_a_stock_grpo_trainer_runs_on_the_remote_reward(served, shaper, tokenizer, sample_records, sample_rollouts,
                                                        tmp_path):
    """TRL's real GRPOTrainer (scripted turns) with the remote reward logs what it logs with the in-process one."""
    from planshape.adapters.trl.remote import RemotePlanshapeReward
    from planshape.adapters.trl.reward import PlanshapeReward
    from trl import GRPOTrainer

    srv, token = served
    entries = []
    for reward in (RemotePlanshapeReward(srv.url, token), PlanshapeReward(shaper)):
        trainer = make_trainer(scripted(GRPOTrainer, sample_rollouts, G), shaper, tokenizer, sample_records,
                               tmp_path / reward.__class__.__name__, max_steps=1, reward_funcs=[reward])
        trainer.train()
        (entry,) = [e for e in trainer.state.log_history if "loss" in e]
        entries.append({k: v for k, v in entry.items() if k.startswith(("planshape/", "rewards/", "reward"))})
    remote, local = entries
    assert any(k.startswith("planshape/") for k in remote) and remote.keys() == local.keys()
    assert remote == pytest.approx(local)


def test_a_server_that_is_gone_costs_failing_scores_not_the_step(sample_rollouts, tmp_path):
    from planshape.adapters.trl.remote import RemotePlanshapeReward
    from planshape.shaping.serve.client import ServerError

    srv = Server({"database": "sample", "total_steps": 2}, tmp_path / "gone", "--workers", "1")
    remote = RemotePlanshapeReward(srv.url, timeout_s=5, retries=1)
    try:
        first = asyncio.run(remote(**_calls(sample_rollouts)))
    finally:
        srv.stop()
    extra: list = []
    metrics: list = []
    after = asyncio.run(remote(**_calls(sample_rollouts), log_extra=lambda k, v: extra.append((k, v)),
                               log_metric=lambda k, v: metrics.append((k, v))))
    assert first.count(5.0) == 4 and after == [0.0] * len(sample_rollouts)
    failures = dict(extra)
    assert set(failures["planshape/failure"]) == {"error"}
    assert all("after 2 tries" in r for r in failures["planshape/reason"])
    assert dict(metrics)["planshape/failure/error"] == 1.0  # the same metric names, counted under error
    with pytest.raises(ServerError, match="cannot reach"):  # never reached at all: a configuration mistake
        asyncio.run(RemotePlanshapeReward(srv.url, timeout_s=2, retries=0)(**_calls(sample_rollouts)))
