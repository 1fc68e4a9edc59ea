"""Run by ``torchrun --nproc_per_node 2`` from test_distributed.py: one PlanPO step on two CPU
processes (gloo), its one group of four split two and two across them. Each rank saves what it generated and
the advantages it trained on."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.update({"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false"})
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root: tests.adapters.trl.*


def main(out: Path) -> None:
    import torch
    from planshape.adapters.trl import PlanPOTrainer, PlanshapeReward, planner_tools, to_dataset
    from planshape.adapters.trl.tiny import tiny_model, tiny_tokenizer
    from planshape.shaping.facade import Shaper
    from planshape.validators.travelplanner.sample import sample_dir
    from trl import GRPOConfig

    from tests.adapters.trl.scripted import recording, scripted

    rollouts = [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines()]
    records = list({r["group"]: r["query"] for r in rollouts}.values())
    shaper = Shaper.from_mapping({"database": "sample", "total_steps": 1})
    corpus = [m["content"] for r in records for m in shaper.messages(r)]
    corpus += [json.dumps(s) for s in shaper.tool_schemas] + [r["text"] for r in rollouts]
    tokenizer = tiny_tokenizer(corpus)
    args = GRPOConfig(output_dir=str(out), max_steps=1, per_device_train_batch_size=2, num_generations=4,
                      steps_per_generation=1, max_completion_length=1024, use_cpu=True, bf16=False,
                      gradient_checkpointing=False, beta=0.0, seed=0, report_to="none", save_strategy="no",
                      logging_steps=1, max_tool_calling_iterations=2, loss_type="grpo", dataloader_num_workers=0)
    cls = recording(scripted(PlanPOTrainer, rollouts, 4), "batches")
    trainer = cls(model=tiny_model(tokenizer), reward_funcs=[PlanshapeReward(shaper)], args=args,
                  train_dataset=to_dataset(records, shaper), processing_class=tokenizer, tools=planner_tools(shaper))
    trainer.train()
    batch = trainer.batches[0]
    rank = trainer.accelerator.process_index
    kept = ("prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "tool_mask", "advantages")
    torch.save({"rank": rank, "world": trainer.accelerator.num_processes, "step": batch["step"],
                "rewards_per_func": batch["rewards_per_func"], **{k: batch["output"][k] for k in kept}},
               out / f"rank{rank}.pt")
    if torch.distributed.is_initialized():  # left to the interpreter's exit, gloo's threads can abort a rank
        torch.distributed.barrier()  # ("terminate called without an active exception", SIGABRT: seen once in CI)
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
