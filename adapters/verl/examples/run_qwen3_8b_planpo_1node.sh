#!/usr/bin/env bash
# PlanPO, Qwen3-8B on ONE node of 8 H200: the same settings as run_qwen3_8b_planpo.sh on half the GPUs.
# Hardware: 1 node(s) x 8 H200 (one Ray cluster; run this on the head node after `ray start` on every node).
# Data step (first run only, automatic): QUERIES="train.csv validation.csv" -> $DATA_DIR/{train,val}.parquet
#   (or by hand: planshape verl prepare-data train.csv validation.csv -o $DATA_DIR --val-size 45).
# Expected wall time per step: about 9-14 min on 1 x 8 H200 (500 steps: about 3-5 days).
#   Estimated, not measured here: 128 trajectories (16 prompts x 8), up to 30 turns / 30,500 response tokens each;
#   the rollout dominates (the planpo advantage measured ~0.2 s per batch on 2 CPU cores, benchmarks/bench_verl_adapter.py).
# Usage: PLANSHAPE_DATABASE=/path/to/database QUERIES="train.csv validation.csv" bash run_qwen3_8b_planpo_1node.sh [extra overrides]
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen3-8B}
EXAMPLES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PLANSHAPE_CONFIG=${PLANSHAPE_CONFIG:-$EXAMPLES/planshape-8b.yaml}
ESTIMATOR=planpo
NNODES=${NNODES:-1}
ROLLOUT_TP=${ROLLOUT_TP:-2}
EXPERIMENT=${EXPERIMENT:-qwen3-8b-planpo-1node}
ACTOR_OFFLOAD=${ACTOR_OFFLOAD:-False}
# shellcheck source=common.sh
source "$EXAMPLES/common.sh"
planshape_run "$@"
