"""Stand-ins for the three GPU-only packages OpenRLHF 0.11.2 imports at module top level.

They stand for:
- ``vllm`` (``vllm``, ``vllm.inputs``, ``vllm.utils``): the rollout engine; OpenRLHF's ``vllm_engine`` and
  ``samples_generator`` import ``SamplingParams``, ``TokensPrompt`` and ``random_uuid`` from it. Tests drive the
  agent executors with their own small engine object, so nothing here is ever called.
- ``flash_attn`` (``flash_attn``, ``flash_attn.bert_padding``, ``flash_attn.utils.distributed``): CUDA attention
  kernels imported by ``openrlhf.models.ring_attn_utils``; no test runs a model forward.
- ``deepspeed`` (``deepspeed.ops.adam``, ``deepspeed.runtime.zero...``): the distributed optimizer imported by
  ``openrlhf.models.utils`` and ``openrlhf.utils.deepspeed``; no test builds a strategy.

Each stand-in is a real module object with a package spec (so transformers' availability probes report the
package as missing instead of crashing) whose unknown attributes are ``MagicMock``s. Everything else OpenRLHF
needs (ray, peft, transformers, torchdata, datasets) is the real package.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from unittest.mock import MagicMock

MODULES = (
    "vllm", "vllm.inputs", "vllm.utils",
    "flash_attn", "flash_attn.bert_padding", "flash_attn.utils", "flash_attn.utils.distributed",
    "deepspeed", "deepspeed.ops", "deepspeed.ops.adam", "deepspeed.runtime", "deepspeed.runtime.zero",
    "deepspeed.runtime.zero.partition_parameters", "deepspeed.runtime.zero.offload_config",
    "deepspeed.runtime.engine", "deepspeed.accelerator",
)


def _stand_in(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    module.__path__ = []
    module.__file__ = f"<stand-in for {name}>"
    mocks: dict[str, MagicMock] = {}

    def __getattr__(attr: str) -> MagicMock:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return mocks.setdefault(attr, MagicMock(name=f"{name}.{attr}"))

    module.__getattr__ = __getattr__
    return module


def install() -> None:
    """Put the stand-ins in ``sys.modules`` (idempotent); call before importing openrlhf."""
    for name in MODULES:
        if name not in sys.modules:
            sys.modules[name] = _stand_in(name)
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, sys.modules[name])
    _no_distribution()


def _no_distribution() -> None:
    """transformers 5.5 (OpenRLHF 0.10.2's pin) looks a found ``flash_attn`` up in its import-name -> distribution
    map without a default (5.15 does not); a stand-in maps to a distribution that is not installed: reported
    missing, as on 5.15."""
    from transformers.utils import import_utils

    mapping = getattr(import_utils, "PACKAGE_DISTRIBUTION_MAPPING", None)
    if isinstance(mapping, dict):
        for name in {m.split(".")[0] for m in MODULES}:
            mapping.setdefault(name, [f"{name}-stand-in"])
