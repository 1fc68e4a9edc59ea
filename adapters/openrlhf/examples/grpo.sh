#!/usr/bin/env bash
# GRPO (OpenRLHF's group_norm) on single-turn TravelPlanner answers, rewarded by planshape's reward file.
# The rollout actors cannot see the training step, so this plain launch suits a one-stage schedule (its config's
# "schedule": "stage1", "stage2" or "stage3"); for a curriculum, launch through grpo-curriculum.sh, whose setup
# hook rescores each batch at the trainer's step.
set -euo pipefail
source "$(dirname "$0")/common.sh"

python3 -m openrlhf.cli.train_ppo_ray "${OPENRLHF_ARGS[@]}" \
  --reward.remote_url "$PLANSHAPE_DIR/reward_func.py"
