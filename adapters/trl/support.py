"""TRL releases planshape supports and what each gets (the one table; see the facade's ``Support``).

Checked against the released wheels: ``PlanshapeReward`` needs ``reward_funcs`` called with the prompts, the
completions, the dataset columns and ``trainer_state`` (the step of a staged schedule), which ``_calculate_rewards``
passes from 0.20.0 on (0.19 passes no ``trainer_state``); ``log_metric`` arrived in 1.0.0 (absent from 0.29.1);
``PlanPOTrainer`` overrides ``GRPOTrainer._generate_and_score_completions(self, inputs)`` and
``_calculate_rewards(self, inputs, prompts, completions, completion_ids_list)``, checked 1.9.0 to 1.16.0 (the
signature check in ``version.py`` guards every release). Tested in CI: 0.20.0 (the reward), 1.9.0 and 1.16.0; the
lines in ``checked`` were installed by ``scripts/setup-trl.sh`` and passed the contract subset
(``scripts/check-releases.sh``); those in ``unchecked`` were read from their wheels only.
"""

from __future__ import annotations

from planshape.shaping.facade import Feature, Support

PLANPO = "planpo_trainer"
TOOLS = "tools"
LOG_METRIC = "log_metric"

SUPPORT = Support(
    package="trl", label="TRL", oldest="0.20.0", before="1.17",
    columns=(("0.20-0.29", "0.20.0"), ("1.0-1.8", "1.0.0"), ("1.9-1.16", "1.9.0")),
    tested=("0.20.0", "1.9.0", "1.16.0"),
    checked=("0.20.0", "0.21.0", "0.22.2", "0.23.1", "0.24.0", "0.25.1", "0.26.2", "0.27.2", "0.28.0", "0.29.1",
             "1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.1", "1.6.0", "1.7.1", "1.8.0", "1.9.0", "1.10.0",
             "1.11.0", "1.12.0", "1.13.0", "1.14.2", "1.16.0"),
    unchecked=("1.15",),
    everywhere=(
        "`PlanshapeReward` in `reward_funcs` (staged schedules by `trainer_state.global_step`)",
        "`planshape trl check` / `prepare-data`",
    ),
    features=(
        Feature(LOG_METRIC, "reward components in TRL's log through `log_metric`", "1.0.0",
                "no log_metric: call planshape.adapters.trl.log_metrics_to(trainer) once after building the "
                "trainer, and the reward appends its metrics to the trainer's own (logged with `reward`, `kl`)",
                "`log_metrics_to(trainer)`"),
        Feature(PLANPO, "`PlanPOTrainer` (PlanPO per-token advantages, or GRPO through the same path)", "1.9.0",
                "the reward only, with GRPOTrainer's own advantages", "reward only"),
        Feature(TOOLS, "the TravelPlanner tools (`GRPOTrainer(tools=planner_tools(...))`)", "1.9.0",
                "no tool loop checked", "not checked"),
    ),
)

check_version = SUPPORT.check
