#!/usr/bin/env bash
# PlanPO on Planner-R1's setting: Qwen3-8B, A = A^E + alpha(k) A^S (alpha 0.1 -> 0.05 over 500 steps), staged reward.
# Hardware: 2 node(s) x 8 H200 (one Ray cluster; run this on the head node after `ray start` on every node).
# Data step (first run only, automatic): QUERIES="train.csv validation.csv" -> $DATA_DIR/{train,val}.parquet
#   (or by hand: planshape verl prepare-data train.csv validation.csv -o $DATA_DIR --val-size 45).
# Expected wall time per step: about 5-8 min on 2 x 8 H200, the same as GRPO (500 steps: about 2-3 days).
#   Estimated, not measured here: 128 trajectories (16 prompts x 8), up to 30 turns / 30,500 response tokens each;
#   the rollout dominates (the planpo advantage measured ~0.2 s per batch on 2 CPU cores, benchmarks/bench_verl_adapter.py).
# Usage: PLANSHAPE_DATABASE=/path/to/database QUERIES="train.csv validation.csv" bash run_qwen3_8b_planpo.sh [extra overrides]
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen3-8B}
EXAMPLES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PLANSHAPE_CONFIG=${PLANSHAPE_CONFIG:-$EXAMPLES/planshape-8b.yaml}
ESTIMATOR=planpo
NNODES=${NNODES:-2}
ROLLOUT_TP=${ROLLOUT_TP:-2}
EXPERIMENT=${EXPERIMENT:-qwen3-8b-planpo}
ACTOR_OFFLOAD=${ACTOR_OFFLOAD:-False}
# shellcheck source=common.sh
source "$EXAMPLES/common.sh"
planshape_run "$@"
