"""A check that never returns does not hold up a TRL step. ``GRPOTrainer._calculate_rewards`` calls the
planshape reward synchronously on the training loop's thread, one batch at a time; the samples are scored one
after another there, so each stuck one costs its budget and no more. With the stall probe (a plugin check that
sleeps or spins on a word in the query), the step's rewards come back within the two budgets plus a small
margin, the stuck samples scored ``timeout`` (reward 0) and the others exactly as without them."""

from __future__ import annotations

import json
import time

from planshape.adapters.trl.reward import FAILURE_COLUMN, QUERY_COLUMN
from planshape.shaping.facade import PASSED, Shaper

from tests.stall_probe import stall_plugin, with_word

from .test_trainer import make_trainer

__all__ = ["stall_plugin"]
BUDGET = 1.0  # the one setting changed from the defaults (10 s), to keep the suite quick: same code path


def test_a_stuck_check_costs_its_sample_not_the_step(stall_plugin, tokenizer, sample_records, sample_rollouts,
                                                     tmp_path):
    from trl import GRPOTrainer

    shaper = Shaper.from_mapping({"database": "sample", "schedule": "stage1", "estimator": "grpo",
                                  "sample_budget_s": BUDGET})
    trainer = make_trainer(GRPOTrainer, shaper, tokenizer, sample_records, tmp_path)
    rows = [sample_rollouts[0], with_word(sample_rollouts[1], "SLEEP"), with_word(sample_rollouts[4], "SPIN"),
            sample_rollouts[5]]
    inputs = [{"prompt": "plan", QUERY_COLUMN: json.dumps(r["query"])} for r in rows]
    completions = [r["text"] for r in rows]
    trainer._calculate_rewards(inputs[:1], ["plan"], completions[:1], [[0]])  # warm: the store opens
    start = time.perf_counter()
    rewards = trainer._calculate_rewards(inputs, ["plan"] * 4, completions, [[0]] * 4)
    took = time.perf_counter() - start
    # wall clock (a timeout): two budgets (TRL scores its rows one after another), plus 1.5 s for the other rows
    # and a loaded machine; unstopped, the probe would hold the step for 60 s
    assert took < 2 * BUDGET + 1.5, took
    assert rewards[:, 0].tolist() == [5.0, 0.0, 0.0, 5.0]  # the others as without the stuck ones (stage 1)
    assert trainer._pending_extra_logs[FAILURE_COLUMN][-4:] == [PASSED, "timeout", "timeout", PASSED]
