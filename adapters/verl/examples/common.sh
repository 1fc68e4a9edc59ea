# Shared by the run_*.sh scripts (sourced, not run): Planner-R1's VERL settings (paper, Appendix B.3) plus
# planshape's reward manager, estimator and tools. The calling script sets MODEL, PLANSHAPE_CONFIG, ESTIMATOR,
# NNODES, ROLLOUT_TP and EXPERIMENT (and may set ACTOR_OFFLOAD=True).
#
# Environment:
#   PLANSHAPE_DATABASE  TravelPlanner database directory (or a built store), on every node      (required)
#   DATA_DIR            where train.parquet / val.parquet are (made on first run)     (default ~/data/planshape)
#   QUERIES             query files for the data step, e.g. "train.csv validation.csv" (HF osunlp/TravelPlanner)
#   PYTHON              the interpreter with verl and planshape (the Ray workers must use the same) (python3)
#   PLANSHAPE_CHECK_ONLY=1       run `planshape verl check` on the overrides and stop
#   PLANSHAPE_PRINT_OVERRIDES=1  print the overrides, one per line, and stop
# Extra arguments to the script are appended as Hydra overrides.

PYTHON=${PYTHON:-python3}
DATA_DIR=${DATA_DIR:-$HOME/data/planshape}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
ACTOR_OFFLOAD=${ACTOR_OFFLOAD:-False}

planshape_overrides() {
  local database=${PLANSHAPE_DATABASE:?set PLANSHAPE_DATABASE to the TravelPlanner database directory}
  OVERRIDES=(
    # algorithm: GRPO-style groups of 8, gamma = lambda = 1, no KL anywhere (Planner-R1)
    "algorithm.adv_estimator=$ESTIMATOR"
    algorithm.gamma=1.0 algorithm.lam=1.0 algorithm.use_kl_in_reward=False
    "+algorithm.planpo.config=$PLANSHAPE_CONFIG" "+algorithm.planpo.estimator=$ESTIMATOR"
    "+algorithm.planpo.database=$database"
    # data: 180 train / 45 val queries; 16 prompts per step; 2268 + 30500 tokens = Qwen3's 32k context
    "data.train_files=$DATA_DIR/train.parquet" "data.val_files=$DATA_DIR/val.parquet"
    data.train_batch_size=16 data.val_batch_size=64
    data.max_prompt_length=2268 data.max_response_length=30500
    data.filter_overlong_prompts=True data.truncation=error
    +data.apply_chat_template_kwargs.enable_thinking=False
    # model and actor: lr 1e-6, mini-batch 8, micro-batch 1, clip 0.2, one PPO epoch, (1/G) sum_i (1/T_i) sum_t
    "actor_rollout_ref.model.path=$MODEL"
    actor_rollout_ref.model.use_remove_padding=True actor_rollout_ref.model.enable_gradient_checkpointing=True
    actor_rollout_ref.actor.optim.lr=1e-6
    actor_rollout_ref.actor.ppo_mini_batch_size=8 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1
    actor_rollout_ref.actor.ppo_epochs=1 actor_rollout_ref.actor.clip_ratio=0.2
    actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-mean
    actor_rollout_ref.actor.use_kl_loss=False actor_rollout_ref.actor.entropy_coeff=0
    "actor_rollout_ref.actor.fsdp_config.param_offload=$ACTOR_OFFLOAD"
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload=$ACTOR_OFFLOAD"
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1
    # rollout: vLLM, n = 8, temperature 1 for training, greedy validation
    actor_rollout_ref.rollout.name=vllm "actor_rollout_ref.rollout.tensor_model_parallel_size=$ROLLOUT_TP"
    actor_rollout_ref.rollout.gpu_memory_utilization=0.6
    actor_rollout_ref.rollout.n=8
    actor_rollout_ref.rollout.temperature=1.0 actor_rollout_ref.rollout.top_p=1.0 actor_rollout_ref.rollout.top_k=-1
    actor_rollout_ref.rollout.val_kwargs.n=1 actor_rollout_ref.rollout.val_kwargs.do_sample=False
    actor_rollout_ref.rollout.val_kwargs.temperature=0
    # multi-turn tools: up to 30 assistant turns, one call per turn, 8192-character tool responses
    actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent
    actor_rollout_ref.rollout.multi_turn.enable=True actor_rollout_ref.rollout.multi_turn.format=hermes
    "actor_rollout_ref.rollout.multi_turn.tool_config_path=$EXAMPLES/tools.yaml"
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=30
    actor_rollout_ref.rollout.multi_turn.max_parallel_calls=1
    actor_rollout_ref.rollout.multi_turn.max_tool_response_length=8192
    "+ray_kwargs.ray_init.runtime_env.env_vars.PLANSHAPE_CONFIG=$PLANSHAPE_CONFIG"
    "+ray_kwargs.ray_init.runtime_env.env_vars.PLANSHAPE_DATABASE=$database"
    # reward: planshape's step-aware manager (staged schedule switches at the real step)
    reward.reward_manager.name=planshape reward.num_workers=8
    # trainer: 500 steps on NNODES x GPUS_PER_NODE; planshape's V1 trainer (VERL's sync trainer that also logs
    # every planshape/* metric and PlanPO statistic per step)
    trainer.v1.trainer_mode=planshape
    "trainer.nnodes=$NNODES" "trainer.n_gpus_per_node=$GPUS_PER_NODE"
    trainer.total_epochs=100 trainer.total_training_steps=500
    trainer.val_before_train=True trainer.test_freq=25 trainer.save_freq=50
    trainer.project_name=planshape-travelplanner "trainer.experiment_name=$EXPERIMENT"
    'trainer.logger=["console","wandb"]'
  )
}

planshape_run() {
  EXAMPLES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  planshape_overrides
  OVERRIDES+=("$@")
  # The tool YAML reads these in this process too (planshape verl check loads it with VERL's tool loader).
  export PLANSHAPE_CONFIG PLANSHAPE_DATABASE
  if [ "${PLANSHAPE_PRINT_OVERRIDES:-0}" = 1 ]; then printf '%s\n' "${OVERRIDES[@]}"; return 0; fi
  if [ "${PLANSHAPE_CHECK_ONLY:-0}" != 1 ] && [ ! -f "$DATA_DIR/train.parquet" ]; then
    # The dataset step: the official train + validation queries, re-split 180/45 by level (Planner-R1).
    # shellcheck disable=SC2086
    "$PYTHON" -m planshape.adapters.verl.cli verl prepare-data ${QUERIES:?set QUERIES to the query files} \
      -o "$DATA_DIR" --val-size 45
  fi
  "$PYTHON" -m planshape.adapters.verl.cli verl check "${OVERRIDES[@]}"
  [ "${PLANSHAPE_CHECK_ONLY:-0}" = 1 ] && return 0
  "$PYTHON" -m verl.trainer.main_ppo "${OVERRIDES[@]}"
}
