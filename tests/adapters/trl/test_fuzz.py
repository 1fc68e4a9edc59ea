"""Seeded fuzz of the TRL reward as ``GRPOTrainer._calculate_rewards`` calls it: keyword arguments only
(``prompts``, ``completions``, ``completion_ids``, every dataset column as a per-row list, ``trainer_state``,
``log_metric``, ``log_extra``). Model text never raises; a trainer-side field either works or raises a
``ValueError`` naming it."""

from __future__ import annotations

import json
import random

from planshape.adapters.trl.reward import QUERY_COLUMN, PlanshapeReward
from transformers import TrainerState

from tests.adapter_fuzz import CASES, label, model_text, must_not_raise, outcome, step_counter


def _completion(rng: random.Random, text: str):
    """A completion as TRL passes it: text, or a conversation whose content may be text or content blocks."""
    return rng.choice([
        text, [{"role": "assistant", "content": text}],
        [{"role": "assistant", "content": [{"type": "text", "text": text}]}],
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": text}],
        [{"role": "assistant", "content": None}], [{"role": "assistant"}], [], [None], [{"content": text}],
        [{"role": "assistant", "content": [{"text": 5}, "x", None]}],
    ])


def _state(rng: random.Random):
    state = TrainerState()
    state.global_step = step_counter(rng)
    return rng.choice([state, state, None, object()])


def test_the_reward_under_fuzzed_completions_and_columns(shaper, sample_rollouts):
    reward = PlanshapeReward(shaper)
    rng = random.Random(30)
    failures = []
    calls = {"metric": 0}
    for case in range(CASES):
        rows = [rng.choice(sample_rollouts) for _ in range(rng.randrange(1, 4))]
        completions = [_completion(rng, model_text(rng, r["text"])) for r in rows]
        good = [json.dumps(r["query"]) for r in rows]
        state = TrainerState()
        state.global_step = rng.randrange(3)

        def model_only() -> None:
            out = reward(prompts=["p"] * len(rows), completions=completions, completion_ids=[[0]] * len(rows),
                         trainer_state=state, log_metric=lambda *_: calls.__setitem__("metric", 1),
                         log_extra=lambda *_: None, **{QUERY_COLUMN: good})
            assert len(out) == len(rows) and all(isinstance(x, float) for x in out)

        if (problem := must_not_raise(model_only)) is not None:
            failures.append(("model", case, problem))
        columns = rng.choice([
            {QUERY_COLUMN: [label(rng, r["query"]) for r in rows]},
            {QUERY_COLUMN: good[:-1]}, {QUERY_COLUMN: good + good}, {QUERY_COLUMN: good[0]},
            {k: [r["query"][k] for r in rows] for k in rows[0]["query"]},
            {**{k: [r["query"][k] for r in rows] for k in rows[0]["query"]}, "query": ["q"]},
            {"other": [1] * len(rows)},
        ])
        problem = outcome(lambda: reward(prompts=["p"] * len(rows), completions=completions,
                                         completion_ids=[[0]] * len(rows), trainer_state=_state(rng), **columns))
        if problem is not None:
            failures.append(("row", case, sorted(columns), problem))
    assert failures == [], failures[:10]
    assert calls["metric"]
