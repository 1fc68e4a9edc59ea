"""Test doubles that are not planshape code: a byte-level tokenizer with a Qwen-style (Hermes) chat template,
built in-process (nothing from a hub), and helpers to build VERL batches and chat transcripts."""

from __future__ import annotations

import ast
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import torch
from planshape.validators.travelplanner.plan.formats import from_upstream
from planshape.validators.travelplanner.query import gold_plan

NL = "{{ '\\n' }}"
CHAT_TEMPLATE = (
    "{%- if tools %}<|im_start|>system" + NL
    + "{%- if messages[0].role == 'system' %}{{ messages[0].content }}" + NL + NL + "{%- endif %}"
    "# Tools" + NL + "<tools>{%- for t in tools %}" + NL + "{{ t | tojson }}{%- endfor %}" + NL + "</tools><|im_end|>"
    + NL + "{%- elif messages[0].role == 'system' %}<|im_start|>system" + NL + "{{ messages[0].content }}<|im_end|>"
    + NL + "{%- endif %}"
    "{%- for m in messages %}"
    "{%- if m.role == 'user' %}<|im_start|>user" + NL + "{{ m.content }}<|im_end|>" + NL
    + "{%- elif m.role == 'assistant' %}<|im_start|>assistant" + NL + "{{ m.content }}"
    "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}<tool_call>" + NL
    + "{\"name\": \"{{ tc.function.name }}\", \"arguments\": {{ tc.function.arguments | tojson "
    "if tc.function.arguments is not string else tc.function.arguments }}}" + NL
    + "</tool_call>{%- endfor %}{%- endif %}<|im_end|>" + NL
    + "{%- elif m.role == 'tool' %}{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user"
    "{%- endif %}" + NL + "<tool_response>" + NL + "{{ m.content }}" + NL + "</tool_response>"
    "{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>" + NL + "{%- endif %}"
    "{%- endif %}{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant" + NL + "{%- endif %}")


def build_tokenizer():
    """Every byte is a token (lossless on any text); <|im_start|>, <|im_end|> (EOS) and a pad are special."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {c: i for i, c in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, chat_template=CHAT_TEMPLATE, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>")
    fast.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
    return fast


def tool_call(name: str, arguments: dict) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def answer(plan: Any) -> str:
    return "Here is the plan.\n<answer>" + json.dumps(plan) + "</answer>"


def gold_after_flight_search(record: dict[str, Any], tools: Any,
                             *between: tuple[str, str]) -> tuple[str, list[tuple[str, str]]]:
    """A train record's ground truth (its query as JSON, as VERL's data step stores it) and the transcript VERL's
    reward loop hands the reward: a real flight search over the database, ``between`` turns, then the gold plan."""
    query = {k: record[k] for k in ("org", "dest", "days", "visiting_city_number", "date", "people_number",
                                    "local_constraint", "budget", "query", "level")}
    flights = {"origin": record["org"], "destination": record["dest"], "date": ast.literal_eval(record["date"])[0]}
    turns = [("assistant", tool_call("search_flights", flights)), ("tool", tools.call("search_flights", flights)),
             *between, ("assistant", answer(from_upstream(gold_plan(record))))]
    return json.dumps(query, default=str), turns


def response_ids(tokenizer, turns: list[tuple[str, str]]) -> tuple[list[int], list[int]]:
    """Token ids and assistant mask of a response: (role, text) pairs, assistant turns end with EOS."""
    ids: list[int] = []
    mask: list[int] = []
    for role, text in turns:
        if role == "assistant":
            part = tokenizer.encode(text, add_special_tokens=False) + [tokenizer.eos_token_id]
        else:
            part = tokenizer.encode("\n<|im_start|>user\n<tool_response>\n" + text + "\n</tool_response><|im_end|>\n"
                                    "<|im_start|>assistant\n", add_special_tokens=False)
        ids += part
        mask += [int(role == "assistant")] * len(part)
    return ids, mask


def reward_row(tokenizer, prompt_ids: list[int], resp_ids: list[int], non_tensors: dict[str, Any]):
    """A one-row DataProto shaped as AgentLoopWorker._compute_score sends it to a RewardLoopWorker."""
    from verl import DataProto

    prompts = torch.tensor([prompt_ids])
    responses = torch.tensor([resp_ids])
    input_ids = torch.cat([prompts, responses], dim=1)
    batch = {"prompts": prompts, "responses": responses, "input_ids": input_ids,
             "attention_mask": torch.ones_like(input_ids), "position_ids": torch.arange(input_ids.shape[1])[None]}
    arrays = {k: np.array([v], dtype=object) for k, v in non_tensors.items()}
    return DataProto.from_dict(tensors=batch, non_tensors=arrays)


def verl_config(overrides: list[str]):
    from planshape.adapters.verl.check import compose

    return compose(overrides)


EXAMPLES = Path(__file__).resolve().parents[3] / "adapters" / "verl" / "examples"


def overrides(script: str, *extra: str, database: str = "sample") -> list[str]:
    """The script's overrides, printed by the script itself (PLANSHAPE_PRINT_OVERRIDES=1)."""
    env = {k: v for k, v in os.environ.items() if k != "PLANSHAPE_CONFIG"}  # each script picks its own
    env.update(PLANSHAPE_DATABASE=database, PLANSHAPE_PRINT_OVERRIDES="1")
    out = subprocess.run(["bash", str(EXAMPLES / script), *extra], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.splitlines()


@contextmanager
def queued(tq: Any, batch: Any) -> Iterator[Any]:
    """A batch put in VERL's TransferQueue for one test, cleared afterwards whatever happens."""
    try:
        yield batch
    finally:
        tq.kv_clear(keys=batch.keys, partition_id=batch.partition_id)


def multi_output_rows(turns: list[list[int]], scores: list[float], uids: list[str], row: Any
                      ) -> tuple[list[Any], list[float], list[str], list[str], list[tuple[int, int]]]:
    """V1's multi-output layout of whole trajectories: one row per assistant turn (``row([n])``), keyed
    ``{uid}_{trajectory}_{output}``, the score on the final output; and where each row came from."""
    masks, row_scores, row_uids, keys, where = [], [], [], [], []
    for i, lengths in enumerate(turns):
        for k, n in enumerate(lengths):
            masks.append(row([n]))
            row_scores.append(scores[i] if k == len(lengths) - 1 else 0.0)
            row_uids.append(uids[i])
            keys.append(f"{uids[i]}_{i}_{k}")
            where.append((i, k))
    return masks, row_scores, row_uids, keys, where
