"""Small drivers for OpenRLHF's real code paths in tests: a scripted stand-in for the vLLM engine (GPU-only), the
example launches with ``ray``/``python3`` recording their argv, and the model forward pass that needs GPUs."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch


class ScriptedEngine:
    """Stands in for vLLM's ``llm_engine``: each ``generate`` returns the next scripted assistant turn, tokenized
    by the run's tokenizer, as vLLM's ``RequestOutput`` carries it."""

    def __init__(self, tokenizer: Any, turns: Iterable[str]) -> None:
        self.tokenizer = tokenizer
        self.turns = iter(turns)
        self.calls = 0

    async def generate(self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None):
        self.calls += 1
        text = next(self.turns)
        ids = self.tokenizer(text=text, add_special_tokens=False)["input_ids"]
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=ids, text=text, finish_reason="stop",
                                                        logprobs=None)])


def sampling_params() -> SimpleNamespace:
    """The two fields of vLLM's ``SamplingParams`` OpenRLHF's executors read and write."""
    return SimpleNamespace(max_tokens=None, logprobs=None)


def forward_pass(samples_list: list[Any]) -> list[Any]:
    """What ``RemoteExperienceMaker.make_experience`` adds with the actor and reference models on GPUs: log
    probabilities and the KL (0 here), per action token."""
    for exp in samples_list:
        exp.action_log_probs = torch.zeros(exp.action_mask.shape)
        exp.base_action_log_probs = torch.zeros(exp.action_mask.shape)
        exp.kl = torch.zeros(exp.action_mask.shape)
        exp.values = None
    return samples_list


def launch(script: str, tmp_path: Path) -> list[str]:
    """Run an example script with ``ray`` and ``python3`` replaced by functions recording their argv."""
    examples = Path(__file__).resolve().parents[3] / "adapters" / "openrlhf" / "examples"
    out = tmp_path / "argv"
    record = f'printf "%s\\0" "$@" > "{out}"'
    fakes = f"ray() {{ {record}; }}; python3() {{ {record}; }}; export -f ray python3"
    env = {"PATH": os.environ["PATH"], "PLANSHAPE_DIR": "/shared/planshape"}
    subprocess.run(["bash", "-c", f'{fakes}; bash "{examples / script}"'], env=env, check=True)
    return out.read_bytes().decode().split("\0")[:-1]


def split_job(argv: list[str]) -> tuple[dict, list[str]]:
    """``ray job submit --address=... --runtime-env-json=JSON -- python3 -m MODULE ARGS``: (runtime env, ARGS)."""
    assert argv[:2] == ["job", "submit"], argv[:4]
    options = dict(a.split("=", 1) for a in argv[2:argv.index("--")])
    command = argv[argv.index("--") + 1:]
    assert command[:3] == ["python3", "-m", "openrlhf.cli.train_ppo_ray"]
    return json.loads(options["--runtime-env-json"]), command[3:]
