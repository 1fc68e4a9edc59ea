#!/usr/bin/env bash
# PlanPO on the multi-turn agent: the estimator stays OpenRLHF's group_norm on the command line, and the setup
# hook overwrites its advantages with planshape's PlanPO (A = A^E + alpha(k) A^S), alpha decaying over
# "total_steps" global steps of the config. KL stays out of the reward (--algo.kl.init_coef 0, as Planner-R1;
# or --algo.kl.use_loss): the hook refuses a run that would fold KL into the advantages it replaces.
set -euo pipefail
source "$(dirname "$0")/common.sh"
: "${PLANSHAPE_CONFIG:=$PLANSHAPE_DIR/planshape.json}"

ray job submit --address="$RAY_ADDRESS" --runtime-env-json="$(planshape_runtime_env "$PLANSHAPE_CONFIG")" \
  -- python3 -m openrlhf.cli.train_ppo_ray "${OPENRLHF_ARGS[@]}" \
  --train.agent_func_path "$PLANSHAPE_DIR/agent_func.py"
