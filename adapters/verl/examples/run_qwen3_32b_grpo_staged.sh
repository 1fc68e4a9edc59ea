#!/usr/bin/env bash
# Planner-R1: Qwen3-32B, GRPO with the staged reward (curriculum-32b: stages switch at steps 50 and 400).
# Hardware: 2 node(s) x 8 H200 (one Ray cluster; run this on the head node after `ray start` on every node).
# Data step (first run only, automatic): QUERIES="train.csv validation.csv" -> $DATA_DIR/{train,val}.parquet
#   (or by hand: planshape verl prepare-data train.csv validation.csv -o $DATA_DIR --val-size 45).
# Expected wall time per step: about 12-20 min on 2 x 8 H200 (500 steps: about 4-7 days); actor offloaded to fit >= 90 GB per GPU.
#   Estimated, not measured here: 128 trajectories (16 prompts x 8), up to 30 turns / 30,500 response tokens each;
#   the rollout dominates (the planpo advantage measured ~0.2 s per batch on 2 CPU cores, benchmarks/bench_verl_adapter.py).
# Usage: PLANSHAPE_DATABASE=/path/to/database QUERIES="train.csv validation.csv" bash run_qwen3_32b_grpo_staged.sh [extra overrides]
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen3-32B}
EXAMPLES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PLANSHAPE_CONFIG=${PLANSHAPE_CONFIG:-$EXAMPLES/planshape-32b.yaml}
ESTIMATOR=grpo
NNODES=${NNODES:-2}
ROLLOUT_TP=${ROLLOUT_TP:-4}
EXPERIMENT=${EXPERIMENT:-qwen3-32b-grpo-staged}
ACTOR_OFFLOAD=${ACTOR_OFFLOAD:-True}
# shellcheck source=common.sh
source "$EXAMPLES/common.sh"
planshape_run "$@"
