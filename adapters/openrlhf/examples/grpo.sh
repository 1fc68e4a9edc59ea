#!/usr/bin/env bash
# GRPO (OpenRLHF's group_norm on the command line) on single-turn TravelPlanner answers, rewarded by planshape's
# reward file with the Planner-R1 curriculum. The rollout actors cannot see the training step, so the setup hook
# rescores each batch at the trainer's global step (the stage's weights) and writes planshape's GRPO advantages.
set -euo pipefail
source "$(dirname "$0")/common.sh"
: "${PLANSHAPE_CONFIG:=$PLANSHAPE_DIR/planshape-grpo.json}"

ray job submit --address="$RAY_ADDRESS" --runtime-env-json="$(planshape_runtime_env "$PLANSHAPE_CONFIG")" \
  -- python3 -m openrlhf.cli.train_ppo_ray "${OPENRLHF_ARGS[@]}" \
  --reward.remote_url "$PLANSHAPE_DIR/reward_func.py"
