"""Where planshape's settings live in a VERL config, and the one ``Shaper`` per process built from them.

One block, ``algorithm.planpo`` (added with Hydra's ``+`` prefix), is read by the ``planpo`` estimator,
the ``planshape`` reward manager and ``planshape verl check``, so the reward's schedule and the estimator's
success test cannot disagree. It holds ``ShapingConfig`` fields (``+algorithm.planpo.database=...``),
or ``config: FILE`` naming a planshape config file whose fields the other keys override. Tools and the
plain ``compute_score`` are configured where VERL lets them be (the tool YAML's ``config.planshape``, the
reward's ``reward_kwargs.planshape``), in the same form.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planshape.shaping.facade import STEP_REWARDS_SETTING, ConfigError, Shaper, as_mapping

BLOCK = "planpo"  # the key under ``algorithm``
FILE_KEY = "config"


def verl_setting(message: str) -> str:
    """A facade message with the setting that reads per-turn rewards spelt as VERL's override
    (``+algorithm.planpo.estimator_options.reward=sum``)."""
    return message.replace(STEP_REWARDS_SETTING, f"+algorithm.{BLOCK}.{STEP_REWARDS_SETTING}")


def block_mapping(block: Any) -> dict[str, Any]:
    """The planshape block as a plain mapping: ``config: FILE`` is read and the other keys override it."""
    block = {FILE_KEY: str(block)} if isinstance(block, str | Path) else as_mapping(block)  # OmegaConf -> dict
    if not isinstance(block, Mapping):
        raise ConfigError(f"the planshape block must be a mapping or a config file path, got {type(block).__name__}")
    merged = dict(block)
    path = merged.pop(FILE_KEY, None)
    if path is None:
        return merged
    file = Path(str(path)).expanduser()
    if not file.is_file():
        raise ConfigError(f"{BLOCK}.{FILE_KEY}: no planshape config file at {file}")
    base = as_mapping(file)
    if not isinstance(base, Mapping):
        raise ConfigError(f"{BLOCK}.{FILE_KEY}: {file} does not hold a mapping")
    return {**base, **merged}


RUN_STEPS = "trainer.total_training_steps"


def run_shaper(settings: Any, run_steps: int | None = None) -> Shaper:
    """The ``Shaper`` of a planshape block, built once per process (``Shaper.shared``: its sandbox opens once, on
    first use); ``run_steps``: the steps VERL will run (``trainer.total_training_steps``), which ``total_steps``
    must then equal (or is filled in from)."""
    return block_shaper(settings, run_steps, RUN_STEPS)


def block_shaper(block: Any, run_steps: int | None, run_source: str) -> Shaper:
    """``run_shaper`` where something else fixed the run's length (``run_source`` says what, in the message of a
    ``total_steps`` that disagrees)."""
    return Shaper.shared(block_mapping(block), run_steps, run_source)


def algorithm_block(algorithm: Any) -> Any:
    """``algorithm.planpo`` of VERL's ``algorithm`` section (a DictConfig or AlgoConfig; both have ``get``)."""
    block = algorithm.get(BLOCK) if algorithm is not None else None
    if block is None:
        raise ConfigError(
            f"no planshape settings: add them to the VERL command line, e.g. "
            f"+algorithm.{BLOCK}.database=/path/to/travelplanner/database +algorithm.{BLOCK}.schedule=curriculum-8b "
            f"(or +algorithm.{BLOCK}.{FILE_KEY}=planshape.yaml); with your own reward and no TravelPlanner, "
            f"+algorithm.{BLOCK}.success.by=threshold +algorithm.{BLOCK}.success.threshold=10 (docs/any-task.md)")
    return block


def trainer_block(config: Any) -> Any:
    """``algorithm.planpo`` of the whole trainer config."""
    return algorithm_block(config.get("algorithm") if config is not None else None)


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import RunShaper

    _contract: RunShaper = run_shaper
