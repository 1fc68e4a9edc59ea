# Shared by the example launches (source it). A Ray cluster of 2 nodes x 8 GPUs is running:
#   node 0: ray start --head --dashboard-host 0.0.0.0      node 1: ray start --address <node 0>:6379
# planshape is installed on both nodes (pip install planshape, or ship it with the runtime env's py_modules), and
#   planshape openrlhf prepare-data train.csv -o "$PLANSHAPE_DIR/train.jsonl" --config planshape.json
#   planshape openrlhf files -o "$PLANSHAPE_DIR" --config planshape.json   (and copy planshape-grpo.json there)
# wrote the prompts and the files OpenRLHF loads by path into a folder every node sees.
# Settings follow Planner-R1 (Qwen3-8B, 16 prompts x 8 rollouts a step, lr 1e-6, no KL, 30,500 response tokens).

: "${RAY_ADDRESS:=http://127.0.0.1:8265}"
: "${MODEL:=Qwen/Qwen3-8B}"
: "${PLANSHAPE_DIR:=/shared/planshape}"
: "${CKPT_DIR:=/shared/checkpoints/planshape-openrlhf}"

OPENRLHF_ARGS=(
  --ref.num_nodes 2 --ref.num_gpus_per_node 8
  --actor.num_nodes 2 --actor.num_gpus_per_node 8
  --vllm.num_engines 8 --vllm.tensor_parallel_size 2 --vllm.gpu_memory_utilization 0.6
  --train.colocate_all --vllm.enable_sleep --ds.enable_sleep --vllm.sync_backend nccl --vllm.enforce_eager
  --actor.model_name_or_path "$MODEL"
  --data.prompt_dataset "$PLANSHAPE_DIR/train.jsonl" --data.input_key prompt --data.label_key label
  --data.apply_chat_template
  --algo.advantage.estimator group_norm --rollout.n_samples_per_prompt 8
  --rollout.batch_size 16 --rollout.micro_batch_size 8 --train.batch_size 64 --train.micro_batch_size 1
  --train.num_episodes 100
  --data.max_len 32768 --rollout.max_new_tokens 30500 --rollout.temperature 1.0
  --algo.kl.init_coef 0
  --actor.adam.lr 1e-6 --actor.eps_clip 0.2
  --ds.zero_stage 3 --ds.param_dtype bf16 --actor.gradient_checkpointing_enable --ds.packing_samples
  --ckpt.output_dir "$CKPT_DIR/model" --ckpt.path "$CKPT_DIR/state" --ckpt.save_steps 50 --ckpt.save_hf
  --logger.tensorboard_dir "$CKPT_DIR/tensorboard"
)

# The runtime env of a planshape run: the worker setup hook that wraps OpenRLHF's advantage computation in the
# trainer actor, and the planshape config, carried to every worker on every node.
planshape_runtime_env() {
  printf '{"worker_process_setup_hook": "planshape.adapters.openrlhf.register.install", "env_vars": {"PLANSHAPE_CONFIG": "%s"}}' "$1"
}
