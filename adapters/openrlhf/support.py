"""OpenRLHF releases planshape supports (the one table; see the facade's ``Support``).

Checked against the released wheels (0.10.0, 0.10.2, 0.10.4, 0.11.2): the dotted CLI (``--reward.remote_url``,
``--train.agent_func_path``, ``--algo.advantage.estimator``) exists from 0.10.2 (0.10.0 has the flat flags);
``AgentInstanceBase.reset/step``, ``MultiTurnAgentExecutor``, ``BasePPOTrainer.__init__`` / ``train_step(
rollout_samples, global_step)`` and ``RemoteExperienceMaker.compute_advantages_and_returns(experiences)`` are the
same from 0.10.2 to 0.11.2. No planshape feature is bound to a release inside the range; the flags that differ
(importance-sampling correction) are not planshape's. Tested in CI: 0.10.2 and 0.11.2; 0.10.4 too, with
``scripts/check-releases.sh`` (the setup script and the contract subset).
"""

from __future__ import annotations

from planshape.shaping.facade import Support

SUPPORT = Support(
    package="openrlhf", label="OpenRLHF", oldest="0.10.2", before="0.12",
    columns=(("0.10.2-0.10.x", "0.10.2"), ("0.11", "0.11.0")), tested=("0.10.2", "0.11.2"),
    checked=("0.10.2", "0.10.4", "0.11.2"),
    everywhere=(
        "the reward file (`--reward.remote_url`) and the agent (`--train.agent_func_path`)",
        "PlanPO through the setup hook (`compute_advantages_and_returns`, estimator `group_norm`)",
        "`planshape openrlhf check` / `files` / `prepare-data`",
    ),
    out_of_range=("OpenRLHF 0.10.1 and older use flat flags (`--remote_rm_url`, `--agent_func_path`, "
                  "`--advantage_estimator`) that planshape's launches and checks do not speak."),
)

check_version = SUPPORT.check
