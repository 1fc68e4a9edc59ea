"""Train a TravelPlanner agent with TRL's GRPOTrainer, planshape rewards and PlanPO advantages.

    # CPU smoke run: a tiny model and tokenizer built here, the bundled sample world, two steps
    python adapters/trl/examples/train_planner.py --tiny --output_dir /tmp/planner-tiny

    # one node, 8 GPUs
    accelerate launch --config_file adapters/trl/examples/accelerate_8gpu.yaml \\
        adapters/trl/examples/train_planner.py --config adapters/trl/examples/grpo_planner.yaml

    # two nodes x 8 GPUs: run on each node, NODE_RANK 0 and 1, MASTER_ADDR = node 0's address
    accelerate launch --config_file adapters/trl/examples/accelerate_8gpu.yaml --num_machines 2 \\
        --num_processes 16 --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port 29500 \\
        adapters/trl/examples/train_planner.py --config adapters/trl/examples/grpo_planner.yaml \\
        --per_device_train_batch_size 8

Every ``GRPOConfig`` and ``ModelConfig`` flag works as in TRL's own ``trl/scripts/grpo.py``; the planshape
settings (database, schedule, estimator, α) live in the file given by ``--shaping``. ``--tiny`` only swaps the
model, the tokenizer and the data; the reward, tools, trainer and metrics are the ones of a real run. The run's
log history is written to ``<output_dir>/<metrics_file>`` as JSON lines.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

TINY_DEFAULTS = [  # put before the user's flags, so any of them can still be overridden
    "--output_dir", "planner-tiny", "--max_steps", "2", "--per_device_train_batch_size", "4",
    "--num_generations", "4", "--max_completion_length", "48", "--max_tool_calling_iterations", "2",
    "--learning_rate", "1e-3", "--use_cpu", "true", "--bf16", "false", "--gradient_checkpointing", "false",
    "--beta", "0.0", "--dataloader_num_workers", "0", "--seed", "0", "--report_to", "none",
    "--save_strategy", "no", "--logging_steps", "1",
]
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "HF_DATASETS_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


@dataclass
class PlannerArguments:
    """What this script adds to TRL's GRPO flags."""

    shaping: str | None = field(default=None, metadata={
        "help": "planshape config: a YAML/JSON file or inline text (database, schedule, estimator, alpha, ...); "
                "--tiny defaults to the bundled sample world"})
    train_file: str | None = field(default=None, metadata={
        "help": "TravelPlanner queries, HF CSV/JSONL layout (e.g. train.csv); --tiny uses the sample queries"})
    limit: int | None = field(default=None, metadata={"help": "use only the first LIMIT queries"})
    tiny: bool = field(default=False, metadata={
        "help": "CPU smoke run: tiny model and tokenizer built in-process, sample world, two steps"})
    metrics_file: str = field(default="planshape_metrics.jsonl", metadata={
        "help": "log history file, written under output_dir"})


def parse(argv: list[str]):
    from trl import GRPOConfig, ModelConfig, TrlParser

    if "--tiny" in argv:
        os.environ.update(OFFLINE)
        argv = TINY_DEFAULTS + argv
    parser = TrlParser((PlannerArguments, GRPOConfig, ModelConfig))
    return parser.parse_args_and_config(args=argv)


def main(argv: list[str] | None = None) -> int:
    args, training_args, model_args = parse(sys.argv[1:] if argv is None else argv)

    from planshape.adapters.trl import PlanPOTrainer, PlanshapeReward, load_queries, planner_tools, run_shaper

    if args.shaping is None and not args.tiny:
        raise SystemExit("--shaping is required: a planshape config file (see adapters/trl/examples/shaping.yaml)")
    shaper = run_shaper(args.shaping or {"database": "sample"}, training_args.max_steps)
    train_file = args.train_file or ("sample" if args.tiny else None)  # the sample world's queries
    if train_file is None:
        raise SystemExit("--train_file is required: TravelPlanner queries (HF CSV/JSONL)")
    dataset = load_queries(train_file, shaper, args.limit)

    model, tokenizer = model_args.model_name_or_path, None
    if args.tiny:
        from planshape.adapters.trl import tiny_model, tiny_tokenizer

        corpus = [m["content"] for row in dataset for m in row["prompt"]]
        corpus += [json.dumps(schema) for schema in shaper.tool_schemas]
        tokenizer = tiny_tokenizer(corpus)
        model = tiny_model(tokenizer)
    elif model is None:
        raise SystemExit("--model_name_or_path is required (or --tiny)")

    trainer = PlanPOTrainer(model=model, reward_funcs=[PlanshapeReward(shaper)], args=training_args,
                            train_dataset=dataset, processing_class=tokenizer, tools=planner_tools(shaper))
    trainer.accelerator.print(json.dumps(shaper.describe(), indent=1, default=str))
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)

    if trainer.accelerator.is_main_process:
        out = Path(training_args.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        with open(out / args.metrics_file, "w", encoding="utf-8") as lines:
            for entry in trainer.state.log_history:
                lines.write(json.dumps(entry) + "\n")
        trainer.accelerator.print(f"metrics written to {out / args.metrics_file}")
    if not args.tiny:
        trainer.save_model(training_args.output_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
