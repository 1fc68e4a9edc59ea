"""VERL releases planshape supports and what each gets (the one table; see the facade's ``Support``).

Checked against the released wheels (0.7.1, 0.8.0, 0.9.1; each minor line's newest release installed by
``scripts/setup-verl.sh`` and passed through the contract subset, ``scripts/check-releases.sh``):
``core_algos.register_adv_est`` and the legacy ``ray_trainer.compute_advantage`` (same estimator kwargs), the
reward-loop registry and ``RewardManagerBase(config, tokenizer, compute_score)``, the ``reward.*`` config,
``BaseTool`` and ``ToolAgentLoop``'s tool calls are the same in all three; the ``verl.plugins`` entry point, the V1
trainers (``verl.trainer.ppo.v1``, with the sync and both async modes) and ``verl.utils.skip`` (the step every
trainer records) are 0.9 only. Tested in CI: 0.7.1 and 0.9.1.
"""

from __future__ import annotations

from planshape.shaping.facade import Feature, Support

PLUGIN_MODULE = "planshape.adapters.verl.register"

ENTRY_POINT = "entry_point"
V1 = "v1"
TRAINER = "planshape_trainer"
ASYNC = "async_trainers"
STEP = "trainer_step"

SUPPORT = Support(
    package="verl", label="VERL", oldest="0.7.1", before="0.10",
    columns=(("0.7", "0.7.1"), ("0.8", "0.8.0"), ("0.9", "0.9.0")),
    tested=("0.7.1", "0.9.1"), checked=("0.7.1", "0.8.0", "0.9.1"), extra="verl-core",
    everywhere=(
        "the `planshape` reward manager and `compute_score` (reward loop)",
        "`algorithm.adv_estimator=planpo` through the legacy trainer (`ray_trainer.compute_advantage`)",
        "the TravelPlanner tools (tool YAML, `ToolAgentLoop`)",
        "`planshape verl check` / `prepare-data`",
    ),
    features=(
        Feature(ENTRY_POINT, "registration on `import verl` (the `verl.plugins` entry point)", "0.9.0",
                f"registration through VERL_USE_EXTERNAL_MODULES={PLUGIN_MODULE}, which must be set in every Ray "
                "process (export it before `ray start` and the launch)", "`VERL_USE_EXTERNAL_MODULES`"),
        Feature(STEP, "the trainer's step for alpha(k) and staged rewards", "0.9.0",
                "alpha(k) counts the estimator's calls in the driver (a resumed run restarts it at 0), and no "
                "step reaches the reward, so only one-stage schedules", "call count; one-stage rewards"),
        Feature(V1, "the V1 trainers (`trainer.use_v1`): `planpo` on multi-output sessions", "0.9.0",
                "the legacy trainer; 0.8's main_ppo_sync runs `planpo` as a registered estimator, one row per "
                "trajectory", "legacy trainer"),
        Feature(TRAINER, "the `planshape` trainer: planshape metrics in the training log, `success.by=flag`, "
                "`total_steps` from the run's length", "0.9.0",
                "planshape metrics in validation only (val-aux/...), success read from the score, total_steps "
                "set by hand", "validation metrics only"),
        Feature(ASYNC, "the async planshape trainers (`planshape_colocate_async`, `planshape_separate_async`)",
                "0.9.0", "no async V1 trainers in this release"),
    ),
    notes={STEP: "`SkipManager.step`, each row's `global_steps`"},
)

check_version = SUPPORT.check
