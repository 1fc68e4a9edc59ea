"""The planpo estimator as VERL runs it (``ray_trainer.compute_advantage``, registered through the plugin) vs
VERL's own GRPO through the same function, same batch, same run.

    .venv-verl/bin/python benchmarks/bench_verl_adapter.py [--repeat N]

Batch: Planner-R1's training shape (16 prompts x 8 rollouts, 30 turns a row, 30,500 response tokens), from
bench_advantages.make_batch. The planpo side includes everything the adapter adds: reading the settings
block, the cached Shaper lookup, the step, and the facade's turn spans, estimator and broadcast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_advantages import interleaved, make_batch  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--turns", type=int, default=30, help="assistant turns per row")
    args = ap.parse_args()
    try:
        import verl  # noqa: F401 - loads the planshape plugin
        from omegaconf import OmegaConf
        from verl import DataProto
        from verl.trainer.ppo.ray_trainer import compute_advantage
        from verl.utils.skip.skip_manager import SkipManager
    except ImportError as exc:
        print(f"verl is not installed ({exc}); run scripts/setup-verl.sh", file=sys.stderr)
        return 1
    rewards, mask, index = make_batch(args.turns)
    algorithm = OmegaConf.create({"adv_estimator": "planpo", "norm_adv_by_std_in_grpo": True,
                                  "planpo": {"database": "sample", "schedule": "stage1", "total_steps": 500}})
    SkipManager.set_step(10)

    def run(name):
        def go():
            data = DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                                       non_tensors={"uid": index})
            return compute_advantage(data, adv_estimator=name, config=algorithm).batch["advantages"]
        return go

    t_grpo, t_planpo = interleaved([run("grpo"), run("planpo")], args.repeat)
    print(f"batch: {mask.shape[0]} trajectories x {mask.shape[1]} tokens, {args.turns} turns a row; "
          f"median of {args.repeat}")
    print(f"VERL compute_advantage, grpo:          {1e3 * t_grpo:8.2f} ms")
    print(f"VERL compute_advantage, planpo (ours): {1e3 * t_planpo:8.2f} ms   ratio {t_planpo / t_grpo:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
