"""What ``planshape serve`` builds before it listens (here or in a Ray Serve replica): the ``Shaper``, checked,
and the step of requests that carry none."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planshape.shaping import Shaper


def serve_shaper(config: Any, workers: int | None, open_now: bool = True) -> Shaper:
    """The server's ``Shaper``: the config file with ``--workers`` on top (default: the config's, at least 1,
    so that a stuck sample's process can be stopped). With ``open_now`` it opens the database now, so a
    configuration mistake stops the server before it listens (``--ray`` checks the settings only: the database
    is opened by each replica, on its own node). The scoring processes are the server's own (``pool``), started
    by each front."""
    from planshape.shaping import Shaper, ShapingConfig
    from planshape.shaping.config import as_mapping

    source = as_mapping(config)
    if not isinstance(source, Mapping):
        raise ValueError(f"--config must hold a planshape config (a mapping), got {type(source).__name__}")
    if not source.get("database"):
        raise ValueError("the planshape config has no database, so there is nothing to serve: add database: (the "
                         "TravelPlanner database directory or store file on this machine)")
    settings: dict[str, Any] = dict(source)
    settings["workers"] = workers if workers is not None else max(1, int(settings.get("workers") or 0))
    shaper = Shaper(ShapingConfig.from_mapping(settings))
    if open_now:
        shaper.scorer.store  # noqa: B018 - opens the database now
    return shaper


def worker_settings(shaper: Shaper, inline: bool) -> dict[str, Any]:
    """The config a scoring process builds its ``Shaper`` from: no pool of its own; the budget enforced by the
    pool that runs it (``inline``: in this process, the facade's own budget)."""
    update: dict[str, Any] = {"workers": 0}
    if not inline:
        update["sample_budget_s"] = None
    return shaper.config.model_copy(update=update).model_dump()


def check_step(shaper: Shaper, step: int | None) -> int:
    """The step of requests that carry none: ``--step``; required for a staged schedule, since OpenRLHF, slime
    and NeMo Gym send no step and the run would otherwise stay in the first stage without saying so."""
    if step is not None:
        if step < 0:
            raise ValueError(f"--step must be >= 0 (optimizer steps completed), got {step}")
        return step
    if shaper.staged:
        stages = ", ".join(f"{s['name']} from step {s['from_step']}" for s in shaper.describe()["stages"])
        raise ValueError(f"schedule {shaper.config.schedule!r} has stages ({stages}), but OpenRLHF, slime and NeMo "
                         "Gym send no step: give --step N, the step scored when a request names none (planshape's "
                         "VERL and TRL clients send theirs), or serve a one-stage schedule (stage1, stage2, stage3)")
    return 0
