"""The three walks of a sample through planshape, measured at run time: the planshape files a call enters and the
calls it makes in them (and the Python calls it makes in all, libraries included), traced with ``sys.setprofile``
(and ``threading.setprofile`` for the threads a call starts). Each walk runs once to build the per-process state (the
store, the shared ``Shaper``, the scoring thread), then once traced.

    .venv-verl/bin/python benchmarks/walks.py verl    # (a) a VERL answer to a reward (compute_score)
    .venv-trl/bin/python benchmarks/walks.py trl      # (b) a TRL PlanPO batch of 8: the reward, then the advantage step
    .venv/bin/python benchmarks/walks.py serve        # (c) POST /get_reward to planshape serve (in-process, 8 samples)

The checkers' own work (``validators/``) is most of the calls; the files and calls outside them are the plumbing
between a trainer's call and the checks. ``--files`` lists the files entered with the calls in each. A walk whose
trainer is not installed says so and is left out. The counts measure structure (how far a value travels), not
speed.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(importlib.util.find_spec("planshape.shaping").origin).parents[1]  # the checkout planshape runs from
OURS = tuple(str(ROOT / folder) + "/" for folder in ("shaping", "validators", "adapters"))
FACADE = str(ROOT / "shaping" / "facade") + "/"
BELOW = tuple(str(ROOT / folder) + "/" for folder in ("shaping/reward", "shaping/advantages", "validators"))
SETTINGS = {"database": "sample", "schedule": "curriculum-8b", "total_steps": 500}


class Trace:
    """Counts calls by the file their code lives in, on every thread, while ``active``."""

    def __init__(self) -> None:
        self.active = False
        self.calls: Counter[str] = Counter()
        self.entries = 0  # calls into the facade from outside it (an adapter, the server, a lower layer)
        self.upward = 0  # calls into the facade from below it (the reward room, the estimators, the checkers)
        self.lock = threading.Lock()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.active and event == "call":
            callee = frame.f_code.co_filename
            caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
            with self.lock:
                self.calls[callee] += 1
                if callee.startswith(FACADE) and not caller.startswith(FACADE):
                    self.entries += 1
                    self.upward += caller.startswith(BELOW)

    def install(self) -> None:
        sys.setprofile(self)
        threading.setprofile(self)

    def ours(self) -> Counter[str]:
        return Counter({str(Path(f).relative_to(ROOT)): n for f, n in self.calls.items() if f.startswith(OURS)})


def measure(name: str, build: Callable[[], Callable[[], Any]], show_files: bool) -> dict[str, Any] | None:
    trace = Trace()
    trace.install()  # before the walk is built: a thread it starts (the scoring thread) is traced too
    try:
        walk = build()
    except ImportError as exc:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]  # None removes it
        print(f"{name}: not measured here ({exc})")
        return None
    walk()  # the per-process state: store, shared Shaper, threads
    trace.active = True
    try:
        walk()
    finally:
        trace.active = False
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]  # None removes it
    ours = trace.ours()
    plumbing = {f: n for f, n in ours.items() if not f.startswith("validators/")}
    row = {"walk": name, "planshape_files": len(ours), "planshape_calls": sum(ours.values()),
           "plumbing_files": len(plumbing), "plumbing_calls": sum(plumbing.values()),
           "facade_entries": trace.entries, "upward_calls": trace.upward, "all_calls": sum(trace.calls.values())}
    print(f"{name}: {row['planshape_files']} planshape files, {row['planshape_calls']} calls in them; outside the "
          f"checkers (shaping/, adapters/): {row['plumbing_files']} files, {row['plumbing_calls']} calls; "
          f"{row['facade_entries']} calls into the facade, {row['upward_calls']} of them from below it "
          f"({row['all_calls']} Python calls in all)")
    if show_files:
        for path, count in sorted(ours.items()):
            print(f"    {count:6d}  {path}")
    return row


def _rollouts() -> list[dict[str, Any]]:
    from planshape.validators.travelplanner import sample

    return [json.loads(line) for line in (sample.sample_dir() / "rollouts.jsonl").read_text().splitlines()]


def verl_walk() -> Callable[[], Any]:
    """(a) One VERL answer (a transcript whose final turn is the plan) through ``compute_score`` at a V1 row's
    step, as VERL's reward loop calls it."""
    from planshape.adapters.verl.reward import compute_score

    row = next(r for r in _rollouts() if "<answer>" in r["text"])
    transcript = "<tool_call>{}</tool_call><tool_response>rows</tool_response>" + row["text"]
    label = json.dumps(row["query"])
    return lambda: compute_score("travelplanner", transcript, label, {"global_steps": 121}, planshape=SETTINGS)


def trl_walk() -> Callable[[], Any]:
    """(b) One TRL PlanPO batch (8 completions, 3 assistant turns each): ``PlanshapeReward`` called as TRL calls a
    ``reward_funcs`` entry, then ``PlanPOMixin``'s advantage step over TRL's gathered rewards and masks. TRL's own
    parts (generation, the accelerator of one process) are stand-ins that return what GRPOTrainer hands the mixin."""
    import torch
    from planshape.adapters.trl.config import run_shaper
    from planshape.adapters.trl.reward import PlanshapeReward
    from planshape.adapters.trl.trainer import PlanPOMixin

    rows = _rollouts()
    shaper = run_shaper(SETTINGS, 500)
    reward = PlanshapeReward(shaper)
    mask = torch.tensor([[1] * 4 + [0] * 3 + [1] * 5 + [0] * 2 + [1] * 6] * len(rows))
    state = type("State", (), {"global_step": 120})()

    class OneProcess:
        process_index = 0

        def gather(self, tensor: Any) -> Any:
            return tensor

        def pad_across_processes(self, tensor: Any, dim: int, pad_index: int) -> Any:
            return tensor

    class GRPOStandIn:
        """What GRPOTrainer does around the mixin: score the completions (``_calculate_rewards``), return the
        batch's masks."""

        def _calculate_rewards(self, inputs: Any, prompts: Any, completions: Any, ids: Any) -> torch.Tensor:
            values = reward(prompts=prompts, completions=completions, trainer_state=state,
                            log_metric=lambda name, value: None, planshape_query=[json.dumps(r["query"]) for r in rows])
            return torch.tensor(values).reshape(-1, 1)

        def _generate_and_score_completions(self, inputs: Any) -> dict[str, Any]:
            completions = [[{"role": "assistant", "content": r["text"]}] for r in rows]
            self._calculate_rewards(inputs, [""] * len(rows), completions, None)
            return {"completion_mask": mask.clone(), "tool_mask": None}

    class Trainer(PlanPOMixin, GRPOStandIn):
        pass

    trainer = object.__new__(Trainer)
    trainer.__dict__.update(
        shaper=shaper, _planshape_column=0, _planshape_flag=None, _planshape_rewards=None, state=state,
        model=type("Model", (), {"training": True})(), num_generations=len(rows), accelerator=OneProcess(),
        reward_weights=torch.ones(1), _metrics={"train": {n: [] for n in shaper.advantage_metric_names}},
        _logs={"advantages": []})
    return lambda: trainer._generate_and_score_completions([{}] * len(rows))


def serve_walk() -> Callable[[], Any]:
    """(c) One ``POST /get_reward`` of OpenRLHF's batch format (8 samples) through the service every front
    shares (``serve/routes.Service.handle``), scored in-process (``workers: 0``: the scoring process's ``Worker``
    on a thread of this one, ``serve/pool.InlinePool``)."""
    import functools

    from planshape.shaping.facade import MAX_TURNS
    from planshape.shaping.serve.pool import InlinePool
    from planshape.shaping.serve.routes import Call, Service
    from planshape.shaping.serve.startup import serve_shaper, worker_settings
    from planshape.shaping.serve.worker import worker_factory

    rows = _rollouts()
    body = json.dumps({"query": ["PROMPT " + r["text"] for r in rows], "prompts": ["PROMPT "] * len(rows),
                       "labels": [json.dumps(r["query"]) for r in rows], "step": 120}).encode()
    shaper = serve_shaper(SETTINGS, 0)
    pool = InlinePool(functools.partial(worker_factory, worker_settings(shaper, True), MAX_TURNS))
    asyncio.run(pool.start())
    service = Service(shaper, pool)

    async def read_body(limit: int) -> bytes:
        return body

    call = Call("POST", "/get_reward", {}, {"Content-Length": str(len(body))}, "127.0.0.1", read_body)

    def walk() -> Any:
        reply = asyncio.run(service.handle(call))
        assert reply.status == 200, reply.body
        return reply

    return walk


WALKS = {"verl": ("(a) a VERL answer to a reward", verl_walk), "trl": ("(b) a TRL PlanPO batch", trl_walk),
         "serve": ("(c) POST /get_reward", serve_walk)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("walks", nargs="*", default=list(WALKS), choices=list(WALKS))
    parser.add_argument("--files", action="store_true", help="list the files entered, with the calls in each")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    args = parser.parse_args(argv)
    rows = []
    for key in args.walks:
        name, build = WALKS[key]
        row = measure(name, build, args.files)
        if row is not None:
            rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
