"""The supported OpenEnv: 0.10.x of the ``openenv`` distribution (what TRL's and verifiers' OpenEnv code imports;
``openenv-core`` 0.3 is the older distribution of the same package). The environment subclasses
``MCPEnvironment`` and serves through ``create_app``, whose signatures moved across releases: another release
fails at import with what to install. One table, the facade's ``Support``, as for the trainers."""

from __future__ import annotations

from planshape.shaping.facade import Support

SUPPORT = Support(package="openenv", label="OpenEnv", oldest="0.10.0", before="0.11",
                  columns=(("0.10", "0.10.0"),), tested=("0.10.0",),
                  everywhere=("the TravelPlanner environment server (`/ws`, `/mcp`, OpenEnv's clients)",))

check_version = SUPPORT.check
