"""The supported verifiers: 0.4.x, the release whose ``verifiers.v1`` API (Taskset, Task, Toolset, Env) this
environment is written against; verifiers rewrote its environment API in 0.4, so another release fails at import
with what to install, not at the first rollout. One table, the facade's ``Support``, as for the trainers."""

from __future__ import annotations

from planshape.shaping.facade import Support

SUPPORT = Support(package="verifiers", label="verifiers", oldest="0.4.0", before="0.5",
                  columns=(("0.4", "0.4.0"),), tested=("0.4.0",),
                  everywhere=("the TravelPlanner environment (`vf.load_environment`, `vf-eval`)",))

check_version = SUPPORT.check
