"""The bad-call checks (tests/environments/bad_calls.py) through TRL's own tool loop: a real ``GRPOTrainer`` step
with the environment class, the tiny model's turns scripted per position in the group.

TRL writes some tool results itself, before an environment sees the call: an unknown tool is
``{'error': 'Tool book_hotel not found.'}``, and arguments that are not an object fail TRL's call of the method.
Arguments that are not JSON are no tool call to TRL at all (its parser falls back to text): that turn is the
rollout's final reply. Bad argument names reach the environment and read as the toolbox answers them; a stuck model
is cut by ``max_tool_calling_iterations``, and the environment says that TRL's loop ended it."""

from __future__ import annotations

import json

from ...environments.bad_calls import BAD, STUCK, check_answers, check_stuck
from .scripted import TOOL_RESPONSE
from .test_trainer import G, grpo_config

ITERATIONS = 4  # max_tool_calling_iterations
OWNED = {"unknown tool": str({"error": f"Tool {BAD[0][1]} not found."})}
UNSENT = {"non-JSON arguments"}
ANSWER = "I could not plan this trip."


def _block(name: str, arguments: str) -> str:
    return f'<tool_call>\n{{"name": {json.dumps(name)}, "arguments": {arguments}}}\n</tool_call>'


SCRIPT = [  # per position in the group: the text of each turn (the last repeats)
    [_block(name, arguments) for kind, name, arguments in BAD if kind not in UNSENT] + [ANSWER],
    [_block(BAD[2][1], BAD[2][2])],  # not JSON: a final reply to TRL
    [_block(STUCK[1], STUCK[2]).replace('"name": ', '"name":')],  # stuck (written apart from position 0's call)
    [ANSWER],
]


def _position(prompt: str, row: int) -> int:
    """A row's position in the group: its first turn's text, once it has one (TRL generates the later turns of
    the rows still calling tools only)."""
    if TOOL_RESPONSE not in prompt:
        return row % G
    (position,) = [p for p, turns in enumerate(SCRIPT) if turns[0] in prompt]
    return position


def test_through_trls_tool_loop(shaper, tokenizer, sample_records, tmp_path):
    from planshape.adapters.trl.data import to_dataset
    from planshape.adapters.trl.environment import CUT, EnvironmentGRPOTrainer, travelplanner_env
    from planshape.adapters.trl.tiny import tiny_model

    class Scripted(EnvironmentGRPOTrainer):
        def _generate_single_turn(self, prompt_ids, *rest, **options):
            tok = self.processing_class
            texts = []
            for i, ids in enumerate(prompt_ids):
                prompt = tok.decode(ids)
                turns = SCRIPT[_position(prompt, i)]
                texts.append(turns[min(prompt.count(TOOL_RESPONSE), len(turns) - 1)])
            return [tok.encode(t, add_special_tokens=False) + [tok.eos_token_id] for t in texts], None

        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            rewards = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
            self.__dict__.setdefault("seen", []).append({"completions": completions,
                                                          "scores": [e._episode.score for e in self.environments]})
            return rewards

    trainer = Scripted(model=tiny_model(tokenizer), train_dataset=to_dataset(sample_records, shaper),
                       args=grpo_config(tmp_path, max_steps=1, max_tool_calling_iterations=ITERATIONS),
                       processing_class=tokenizer, environment_factory=travelplanner_env(shaper))
    trainer.train()
    (batch,) = trainer.seen
    box = shaper.tools()
    for row, (completion, score) in enumerate(zip(batch["completions"], batch["scores"], strict=True)):
        read = [m["content"] for m in completion if m["role"] == "tool"]
        position = row % G
        if position == 0:
            not_an_object = next(t for t in read[2:3])  # TRL's own call of the method failed
            owned = {**OWNED, "arguments not an object": not_an_object}
            assert not_an_object.startswith("{'error': ") and "mapping" in not_an_object
            check_answers(read, box, owned, UNSENT)
            assert score.failure == "no_answer" and score.reason != CUT  # answered, with no plan
        elif position == 1:
            assert read == [] and score.failure == "no_answer" and score.reason != CUT
        elif position == 2:
            assert read == [OWNED["unknown tool"]] * ITERATIONS  # every iteration ran the call: each counted
            check_stuck(score.failure, score.reason, None, reason_says_cap=False)
            assert score.reason == CUT
        else:
            assert read == [] and score.failure == "no_answer"
