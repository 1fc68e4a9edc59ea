#!/usr/bin/env bash
# The multi-turn TravelPlanner agent (tools over the sandbox, up to 30 turns), trained with GRPO advantages
# through the setup hook (the curriculum follows the trainer's step).
set -euo pipefail
source "$(dirname "$0")/common.sh"
: "${PLANSHAPE_CONFIG:=$PLANSHAPE_DIR/planshape-grpo.json}"

ray job submit --address="$RAY_ADDRESS" --runtime-env-json="$(planshape_runtime_env "$PLANSHAPE_CONFIG")" \
  -- python3 -m openrlhf.cli.train_ppo_ray "${OPENRLHF_ARGS[@]}" \
  --train.agent_func_path "$PLANSHAPE_DIR/agent_func.py"
