"""The reward callable under TRL's calling convention: queries from columns, step from trainer_state,
plain and conversational completions, every metric logged, nothing a model writes raises."""

from __future__ import annotations

import json
import pickle

import pytest
from transformers import TrainerState


@pytest.fixture(scope="module")
def reward(shaper):
    from planshape.adapters.trl.reward import PlanshapeReward

    return PlanshapeReward(shaper)


def answers(rollouts):
    return [r["text"] for r in rollouts], [json.dumps(r["query"]) for r in rollouts]


def conversation(text: str) -> list[dict]:
    call = {"type": "function", "function": {"name": "calculator", "arguments": {"expression": "1+1"}}}
    return [{"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "name": "calculator", "content": "2"},
            {"role": "assistant", "content": text}]


def test_plain_completions_score_as_the_facade(reward, shaper, sample_rollouts):
    texts, queries = answers(sample_rollouts)
    got = reward(prompts=[""] * len(texts), completions=texts, planshape_query=queries,
                 trainer_state=TrainerState(global_step=0))
    want = [shaper.score(t, json.loads(q), 0).reward for t, q in zip(texts, queries, strict=True)]
    assert got == want
    assert got.count(5.0) == 4 and 0.0 in got and any(0 < r < 5 for r in got)


def test_conversational_completions_read_the_last_assistant_message(reward, sample_rollouts):
    texts, queries = answers(sample_rollouts)
    plain = reward(prompts=[""] * len(texts), completions=texts, planshape_query=queries)
    chat = reward(prompts=[[]] * len(texts), completions=[conversation(t) for t in texts], planshape_query=queries)
    blocks = [[{"role": "assistant", "content": [{"type": "text", "text": t[:50]}, {"type": "text", "text": t[50:]}]}]
              for t in texts]
    assert chat == plain
    assert reward(prompts=[[]] * len(texts), completions=blocks, planshape_query=queries) == plain
    # a trajectory that ends on a tool message: its last assistant turn (a tool call) holds no answer
    cut = [conversation(t)[:2] for t in texts]
    assert reward(prompts=[[]] * len(texts), completions=cut, planshape_query=queries) == [0.0] * len(texts)


def test_step_comes_from_trainer_state(sample_rollouts):
    from planshape.adapters.trl.reward import PlanshapeReward
    from planshape.shaping.facade import Shaper

    staged = PlanshapeReward(Shaper.from_mapping({"database": "sample", "schedule": "curriculum-8b",
                                                  "total_steps": 500}))
    texts, queries = answers(sample_rollouts)
    partial = [i for i, r in enumerate(sample_rollouts) if "repeats a restaurant" in r["note"]]
    rewards = {step: staged(prompts=[""] * len(texts), completions=texts, planshape_query=queries,
                            trainer_state=TrainerState(global_step=step)) for step in (0, 99, 100, 400)}
    assert rewards[0] == rewards[99]  # stage 1 is [0, 100)
    assert rewards[0][partial[0]] > rewards[100][partial[0]] > 0 == rewards[400][partial[0]]  # only pass counts


def test_every_metric_is_logged_once_per_batch(reward, shaper, sample_rollouts):
    texts, queries = answers(sample_rollouts)
    logged: dict[str, list[float]] = {}
    reward(prompts=[""] * len(texts), completions=texts, planshape_query=queries,
           log_metric=lambda name, value: logged.setdefault(name, []).append(value))
    assert list(logged) == list(shaper.metric_names) and all(len(v) == 1 for v in logged.values())
    assert logged["planshape/success"] == [0.5] and logged["planshape/failure/pass"] == [0.5]
    assert logged["planshape/failure/no_answer"] == [0.125]


@pytest.mark.parametrize("completion", [
    None, 12, 3.5, b"<answer>", "", [], {}, [None], ["<answer>[]</answer>"], [{"role": "assistant"}],
    [{"role": "assistant", "content": {"x": 1}}], [{"role": "assistant", "content": [None, 7, {"text": 5}]}],
    [{"role": "user", "content": "<answer>[]</answer>"}], [{"content": "x"}], "<answer>" + "[" * 5000,
])
def test_model_output_never_raises(reward, sample_records, completion):
    query = json.dumps(sample_records[0])
    assert reward(prompts=[""], completions=[completion], planshape_query=[query]) == [0.0]


def test_query_from_raw_travelplanner_columns(reward, sample_rollouts):
    texts, queries = answers(sample_rollouts)
    records = [json.loads(q) for q in queries]
    columns = {k: [r[k] for r in records] for k in records[0]}
    raw = reward(prompts=[""] * len(texts), completions=texts, completion_ids=[[1]] * len(texts), **columns)
    assert raw == reward(prompts=[""] * len(texts), completions=texts, planshape_query=queries)
    with pytest.raises(ValueError, match="planshape_query"):
        reward(prompts=[""], completions=["x"], days=[3])


def test_name_and_pickle(reward, sample_rollouts):
    try:
        from trl.trainer.utils import get_callable_name
    except ImportError:  # TRL < 1.0 names a reward function by its __name__
        def get_callable_name(func):
            return func.__name__

    assert get_callable_name(reward) == "planshape"
    copy = pickle.loads(pickle.dumps(reward))
    texts, queries = answers(sample_rollouts)
    assert copy(prompts=[""] * 8, completions=texts, planshape_query=queries) == \
        reward(prompts=[""] * 8, completions=texts, planshape_query=queries)


def test_failure_and_reason_reach_trl_completions_table(reward, sample_rollouts):
    """TRL's ``log_extra``: one value per completion, the countable failure and its reason."""
    texts, queries = answers(sample_rollouts)
    columns: dict[str, list] = {}
    reward(prompts=[""] * len(texts), completions=texts, planshape_query=queries,
           log_extra=lambda column, values: columns.setdefault(column, []).extend(values))
    assert set(columns) == {"planshape/failure", "planshape/reason"}
    assert len(columns["planshape/failure"]) == len(texts) == len(columns["planshape/reason"])
    assert columns["planshape/failure"][:4] == ["pass", "pass", "commonsense:is_valid_restaurants", "no_answer"]
    assert columns["planshape/reason"][0] == "" and columns["planshape/reason"][3]
