#!/usr/bin/env bash
# GRPO with the Planner-R1 curriculum: the reward file scores in the rollout actors, and the setup hook rescores
# each batch at the trainer's global step (the stage's weights) before planshape's GRPO advantages.
set -euo pipefail
source "$(dirname "$0")/common.sh"
: "${PLANSHAPE_CONFIG:=$PLANSHAPE_DIR/planshape-grpo.json}"

ray job submit --address="$RAY_ADDRESS" --runtime-env-json="$(planshape_runtime_env "$PLANSHAPE_CONFIG")" \
  -- python3 -m openrlhf.cli.train_ppo_ray "${OPENRLHF_ARGS[@]}" \
  --reward.remote_url "$PLANSHAPE_DIR/reward_func.py"
