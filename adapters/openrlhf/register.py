"""The Ray ``worker_process_setup_hook``: ``planshape.adapters.openrlhf.register.install``.

Ray runs it in every worker of the job, the vLLM engines included, before any task or actor. Importing
OpenRLHF's trainer there would pull deepspeed and torch into workers that must set up CUDA first, so it only
adds a post-import hook: when ``openrlhf.trainer.ppo_trainer`` has been executed in a process (the trainer
actor), ``advantages.patch_openrlhf`` wraps it. It imports nothing else and touches no other module.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

TARGET = "openrlhf.trainer.ppo_trainer"


def _apply(module: ModuleType) -> None:
    from .advantages import patch_openrlhf

    patch_openrlhf()


class _PatchingLoader(importlib.abc.Loader):
    """Runs the real loader, then the patch: the module is complete, the classes exist."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        _apply(module)


class PostImportFinder(importlib.abc.MetaPathFinder):
    """Finds ``TARGET`` through the other finders and hands back its spec with a patching loader."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


def install() -> None:
    """The setup hook (idempotent): patch now if the trainer module is loaded, else when it is imported."""
    if TARGET in sys.modules:
        _apply(sys.modules[TARGET])
    elif not any(isinstance(finder, PostImportFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, PostImportFinder())
