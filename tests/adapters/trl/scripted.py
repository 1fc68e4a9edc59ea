"""A scripted policy for the tiny random model, so that TRL's real tool loop runs with real tool calls.

A random model never writes a valid ``<tool_call>``. ``scripted(cls)`` makes a trainer class whose first turn
is a fixed tool call per position in the group, and whose post-tool turn is a sample rollout's final answer
(two passing, one failing, one without an answer; ``None`` would leave a turn to the model). Everything else
(tool execution, parsing, masks, rewards, advantages, loss) is the trainer's own code. ``recording(cls, name)``
keeps what a class layer returned and what the loss saw.
"""

from __future__ import annotations

import json

TOOL_CALLS = (
    {"name": "search_flights", "arguments": {"origin": "Harborview", "destination": "Lindenfield",
                                             "date": "2022-03-10"}},
    {"name": "search_attractions", "arguments": {"city": "Lindenfield"}},
    {"name": "calculator", "arguments": {"expression": "(120 + 95) * 2"}},
    {"name": "get_cities", "arguments": {"state": "Nowhere"}},  # an error the model gets back as text
)


NO_ANSWER = "I could not finish the plan."
TOOL_RESPONSE = "<tool_response>"  # how the Qwen2.5 template shows a tool result to the model


def lookup_call(item: str) -> str:
    """The one tool call of the non-TravelPlanner tasks' first turn: ``lookup(item)``."""
    return f"<tool_call>\n{json.dumps({'name': 'lookup', 'arguments': {'item': item}})}\n</tool_call>"


def lookup_tokenizer(prompts: list[str], items: list[str], answers: list[str]):
    """A tiny tokenizer trained on a lookup task's prompts, tool calls and answers."""
    from planshape.adapters.trl.tiny import tiny_tokenizer

    return tiny_tokenizer((prompts + items + answers + [lookup_call(i) for i in items]) * 20)


def scripted_lookup(base: type, items: list[str], answers: list[str]) -> type:
    """A trainer class whose policy, at position k of a group, calls ``lookup(items[k])`` first and then answers
    ``answers[k]`` (a first turn is one whose prompt holds no tool response yet; any TRL release's signature)."""

    class Scripted(base):
        def _generate_single_turn(self, prompt_ids, images, multimodal_fields, *rest, **options):
            tok = self.processing_class
            out = []
            for i, ids in enumerate(prompt_ids):
                k = i % len(items)
                text = lookup_call(items[k]) if TOOL_RESPONSE not in tok.decode(ids) else answers[k]
                out.append(tok.encode(text, add_special_tokens=False) + [tok.eos_token_id])
            return out, None

    return Scripted


def answer_of(text: str) -> str:
    start = text.rfind("<answer>")
    return text[start:] if start >= 0 else ""


def scripted(base: type, rollouts: list[dict], group_size: int = 4) -> type:
    """``base`` (a GRPOTrainer class) whose turns are scripted as the module says."""

    answers = {}  # query text -> answer per position in the group (None: the model writes it)
    for row in rollouts:
        text = answer_of(row["text"])
        answers.setdefault(row["query"]["query"], [None] * group_size)[row["trajectory"]] = text or NO_ANSWER

    class Scripted(base):
        def _generate_single_turn(self, prompt_ids, images, multimodal_fields, *rest, **options):
            # TRL 1.16 adds (num_generations, has_tool_images); 1.9 has neither: a row's first turn is the one
            # whose prompt holds no tool response yet
            tok = self.processing_class
            eos = tok.eos_token_id
            texts = []
            for i, ids in enumerate(prompt_ids):
                position = i % group_size
                prompt = tok.decode(ids)
                if TOOL_RESPONSE not in prompt:
                    texts.append(f"<tool_call>\n{json.dumps(TOOL_CALLS[position])}\n</tool_call>")
                else:
                    query = next(q for q in answers if q in prompt)
                    texts.append(answers[query][position])
            needs_model = [i for i, t in enumerate(texts) if t is None]
            generated = {}
            if needs_model:
                one = {**options, "num_generations": 1} if "num_generations" in options else options
                ids, _ = super()._generate_single_turn([prompt_ids[i] for i in needs_model], images,
                                                       multimodal_fields, *((1, *rest[1:]) if rest else ()), **one)
                generated = dict(zip(needs_model, ids, strict=True))
            out = [generated[i] if t is None else tok.encode(t, add_special_tokens=False) + [eos]
                   for i, t in enumerate(texts)]
            return out, None

    return Scripted


def recording(base: type, name: str) -> type:
    """``base`` keeping, in ``self.<name>``, each generation batch it returned (with the gathered rewards and the
    step) and, in ``self.<name>_loss``, the loss inputs."""

    class Recording(base):
        def _generate_and_score_completions(self, inputs):
            output = super()._generate_and_score_completions(inputs)
            rewards = getattr(self, "_planshape_rewards", None)
            self.__dict__.setdefault(name, []).append({
                "output": {k: v.clone() if hasattr(v, "clone") else v for k, v in output.items()},
                "rewards_per_func": None if rewards is None else rewards.clone(),
                "step": self.state.global_step})
            return output

        def _compute_loss(self, model, inputs):
            kept = ("completion_ids", "advantages", "completion_mask", "tool_mask")
            self.__dict__.setdefault(f"{name}_loss", []).append({k: inputs[k].clone() for k in kept if k in inputs})
            return super()._compute_loss(model, inputs)

    return Recording
