"""``ShapingConfig``: every planshape setting in one validated object, built once at start-up.

Each adapter translates its trainer's settings (VERL Hydra keys, TRL arguments, OpenRLHF flags) into this
object, so a misspelt key, an unknown estimator, schedule, mode or grouping, or a missing database fails
before any GPU time is spent, with the field path and the allowed values.
"""

from __future__ import annotations

import inspect
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from planshape.validators.travelplanner.agent.tools import DEFAULT_MAX_CHARS
from planshape.validators.travelplanner.checks.conventions import Conventions
from planshape.validators.travelplanner.plan.formats import MAX_ANSWER_CHARS
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from . import plugins
from .observe.metric_names import GROUPS
from .schedules import WEIGHTED, LinearDecay, Schedule, ScheduleError, schedule_from_config

SAMPLE_WORLD = "sample"  # the ``database`` value that selects the bundled sample world
TRAVELPLANNER_FIELDS = ("backend", "mode", "conventions", "schedule", "component_weights", "answer", "tools",
                        "monitor", "sample_budget_s", "workers")
"""What only scoring TravelPlanner plans reads: refused, when not left at its default, in an estimator-only config."""


class ConfigError(ValueError):
    """A configuration that cannot run; the message names each bad field and what is allowed."""


class StepRewardsIgnored(ConfigError):
    """A batch carries per-turn rewards that the configured estimator would ignore: refused, never dropped. The
    message names the setting to add (``STEP_REWARDS_SETTING``), which an adapter may spell its trainer's way."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AlphaDecay(_Section):
    """PlanPO's α(k): linear decay from ``init`` to ``final`` over ``steps`` (null: the run's ``total_steps``).

    Defaults are the PlanPO paper's (α_init = 2·α_final = 0.1)."""

    init: float = 0.1
    final: float = 0.05
    steps: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _range(self) -> AlphaDecay:
        if not (math.isfinite(self.init) and math.isfinite(self.final)) or not 0 <= self.final <= self.init:
            raise ValueError(f"need finite 0 <= final <= init, got init={self.init}, final={self.final}")
        return self


class Success(_Section):
    """PlanPO's success predicate: the TravelPlanner final pass (default with a database), a reward threshold
    (the PlanPO paper: success iff R = 10, i.e. threshold 10), or a per-sample 0/1 flag the trainer already
    carries, named by ``flag`` (TRL: a reward function's name; OpenRLHF: ``scores``)."""

    by: Literal["pass", "threshold", "flag"] = "pass"
    threshold: float | None = None
    flag: str | None = None

    @model_validator(mode="after")
    def _threshold(self) -> Success:
        if (self.by == "threshold") != (self.threshold is not None):
            raise ValueError("give 'threshold' exactly when by='threshold'")
        if (self.by == "flag") != bool(self.flag):
            raise ValueError("give 'flag' (the trainer's per-sample success field) exactly when by='flag'")
        if self.threshold is not None and not math.isfinite(self.threshold):
            raise ValueError(f"threshold must be finite, got {self.threshold}")
        return self


class Anchor(_Section):
    """Where GiGPO's anchor states come from (``advantages/anchors.py``): ``state``, the per-turn state ids the
    trainer or environment provides in ``field`` (docs/any-task.md says where, per trainer); ``tool_calls``, the
    TravelPlanner key, the tool calls and their arguments made before each turn, read from the turns' text.
    Default: ``tool_calls`` with a TravelPlanner database, else ``state``."""

    by: Literal["state", "tool_calls"] | None = None
    field: str = Field(default="anchors", min_length=1)
    similarity: float | None = Field(default=None, gt=0, lt=1)
    """verl-agent's similarity-based step groups (off by default, as there): text states of one prompt group whose
    ``difflib`` ratio reaches this threshold share a step group (``advantages/anchors.py``); ``state`` states only."""


class StepRewards(_Section):
    """Per-turn rewards besides the outcome (docs/any-task.md, "Per-turn rewards"). ``rows``: how a row-per-turn
    batch reads the scores of a trajectory's non-final rows (``advantages/layout.py``): ``turn``, each row's score is
    its turn's reward; ``copy``, each repeats the outcome (or is 0); ``auto``, copies when every such row is 0 or
    its trajectory's outcome, per-turn rewards otherwise. ``field``: where a trainer that keeps one row per trajectory
    holds each row's list of per-turn rewards (VERL: the agent loop's ``extra_fields``; TRL: a ``rollout_func``
    field or the environment's attribute; OpenRLHF: the final step's ``extra_logs``, one key ``<field>/<k>`` per
    turn); unset, none are read there."""

    rows: Literal["auto", "turn", "copy"] = "auto"
    field: str | None = Field(default=None, min_length=1)


class Answer(_Section):
    max_chars: int = Field(default=MAX_ANSWER_CHARS, gt=0)


class Tools(_Section):
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, gt=0)


class ShapingConfig(_Section):
    """Every planshape setting. See docs/adapter-kit.md for each field.

    Without ``database`` the config is estimator-only (docs/any-task.md): PlanPO or GRPO over the trainer's
    own reward, so the TravelPlanner fields, which would then be ignored, are refused."""

    database: str | None = None
    backend: Literal["auto", "memory", "sqlite"] = "auto"
    mode: Literal["official", "strict"] = "strict"
    conventions: Conventions = Conventions()  # strict's bounds the database does not give (docs/modes.md)
    schedule: str | dict[str, Any] = "stage1"
    component_weights: dict[str, float] = {}
    estimator: str = "planpo"
    estimator_options: dict[str, Any] = {}
    alpha: AlphaDecay = AlphaDecay()
    total_steps: int | None = Field(default=None, gt=0)
    success: Success = Success()
    anchor: Anchor = Anchor()
    step_rewards: StepRewards = StepRewards()
    answer: Answer = Answer()
    tools: Tools = Tools()
    # Observability and stall-proof scoring (docs/observe.md)
    monitor: bool = True
    metrics: tuple[str, ...] = GROUPS  # the metric groups logged (observe.metric_names.GROUPS)
    log_dir: str | None = None
    sample_budget_s: float | None = Field(default=10.0, gt=0, allow_inf_nan=False)
    workers: int = Field(default=0, ge=0)

    @field_validator("log_dir")
    @classmethod
    def _log_dir(cls, value: str | None) -> str | None:
        if value is not None and Path(value).expanduser().exists() and not Path(value).expanduser().is_dir():
            raise ValueError(f"{value!r} exists and is not a directory; give a directory for the verdict log")
        return None if value is None else str(Path(value).expanduser())

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [g for g in value if g not in GROUPS]
        if unknown:
            raise ValueError(f"unknown metric group(s) {unknown}; known: {list(GROUPS)}")
        return tuple(g for g in GROUPS if g in value)  # one order, whatever order the config lists them in

    @field_validator("database")
    @classmethod
    def _database(cls, value: str | None) -> str | None:
        if value is None or value == SAMPLE_WORLD:
            return value
        path = Path(value).expanduser()
        if not path.exists():
            raise ValueError(f"{value!r} does not exist; give a TravelPlanner database directory (official CSV "
                             f"layout), a store file built by `planshape db build`, or {SAMPLE_WORLD!r}")
        return str(path)

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, value: str | dict[str, Any]) -> str | dict[str, Any]:
        try:
            schedule_from_config(value, plugins.schedules())
        except ScheduleError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("component_weights")
    @classmethod
    def _component_weights(cls, value: dict[str, float]) -> dict[str, float]:
        for name, weight in value.items():
            if name in WEIGHTED:
                raise ValueError(f"{name!r} is weighted by the schedule; component_weights is for plugin components")
            if not math.isfinite(weight) or weight < 0:
                raise ValueError(f"{name}: weight must be a finite number >= 0, got {weight}")
        return value

    @field_validator("estimator")
    @classmethod
    def _estimator(cls, value: str) -> str:
        known = plugins.estimators()
        if value not in known:
            raise ValueError(f"unknown advantage estimator {value!r}; known: {sorted(known)}")
        return value

    @property
    def estimator_only(self) -> bool:
        """No TravelPlanner database: planshape estimates advantages from the trainer's reward, scores nothing."""
        return self.database is None

    @property
    def reads_step_rewards(self) -> bool:
        """Whether the configured estimator, with its options, uses per-turn rewards besides the outcome."""
        from .advantages.estimators import reads_step_rewards

        return reads_step_rewards(plugins.estimators()[self.estimator], self.estimator_options)

    @property
    def anchor_key(self) -> str:
        """Where anchor states come from: ``anchor.by``, by default ``tool_calls`` on TravelPlanner, else ``state``."""
        return self.anchor.by or ("state" if self.estimator_only else "tool_calls")

    @property
    def success_flag(self) -> str | None:
        """The trainer's per-sample field that decides success (``success.by=flag``), else None."""
        return self.success.flag if self.success.by == "flag" else None

    @property
    def database_path(self) -> Path | None:
        """Where the database is (the bundled sample world's for ``sample``); None when estimator-only."""
        if self.database is None:
            return None
        if self.database == SAMPLE_WORLD:
            from planshape.validators.travelplanner import sample

            return sample.sample_database()
        return Path(self.database)

    @model_validator(mode="after")
    def _estimator_only_fields(self) -> ShapingConfig:
        if not self.estimator_only:
            return self
        ignored = [f for f in TRAVELPLANNER_FIELDS if getattr(self, f) != type(self).model_fields[f].default]
        if ignored:
            raise ValueError(f"{', '.join(ignored)}: set without a database, so nothing would use it (estimator-only "
                             "use scores nothing); remove it, or give database: to score TravelPlanner plans")
        fn = plugins.estimators()[self.estimator]
        if self.success.by == "pass" and getattr(fn, "uses_success", True):
            raise ValueError("success: without a database there is no TravelPlanner final pass; say what success "
                             "is: success: {by: threshold, threshold: 10} (the PlanPO paper's reward of 10) or "
                             "success: {by: flag, flag: <the trainer's per-sample success field>}")
        return self

    @model_validator(mode="after")
    def _estimator_setup(self) -> ShapingConfig:
        fn = plugins.estimators()[self.estimator]
        check_estimator_options(self.estimator, fn, self.estimator_options)
        if self.step_rewards.field is not None and not self.reads_step_rewards:
            raise ValueError(f"step_rewards.field: {step_rewards_ignored(self.estimator, fn)}")
        if self.anchor.similarity is not None:
            if not getattr(fn, "uses_anchors", False):
                raise ValueError(f"anchor.similarity: estimator {self.estimator!r} groups no turns by anchor state, so "
                                 "nothing would use it; remove it, or use estimator: gigpo")
            if self.anchor_key != "state":
                raise ValueError("anchor.similarity compares text states (anchor.by=state); the tool_calls key is a "
                                 "digest of the calls so far, equal or unrelated, never similar: remove it")
        return self

    def estimator_problems(self) -> dict[str, str]:
        """What estimating advantages needs from this config and does not get, by field: α's horizon for an
        estimator that decays α, a success that can be read from the reward. Not validation errors: a route that
        only scores (a reward function, the server, an environment, a rollout) never estimates and never asks;
        every route that estimates asks before its first batch (``require_estimator``)."""
        fn = plugins.estimators()[self.estimator]
        out = {}
        if takes_alpha(fn) and self.alpha_horizon is None:
            out["total_steps"] = (f"estimator {self.estimator!r} decays α over the run: set total_steps (the run's "
                                  "optimizer steps) or alpha.steps")
        if self.success.by == "pass" and getattr(fn, "uses_success", True) and not self.estimator_only:
            try:
                success_readable_from_reward(self.schedule_object(), self.component_weights)
            except ValueError as exc:
                out["success"] = str(exc)
        return out

    def require_estimator(self, where: str = "") -> None:
        """A ``ConfigError`` naming each of ``estimator_problems`` (``where``: the route that estimates, for the
        message), else nothing."""
        problems = self.estimator_problems()
        if problems:
            raise ConfigError(f"planshape config{' for ' + where if where else ''}: estimator {self.estimator!r} "
                              "cannot estimate advantages with it:\n  "
                              + "\n  ".join(f"{field}: {why}" for field, why in problems.items()))

    @model_validator(mode="after")
    def _stages_fit_the_run(self) -> ShapingConfig:
        end = self.total_steps
        late = [s for s in self.schedule_object().stages if end is not None and s.start >= end]
        if late:
            raise ValueError(f"schedule: stage {late[0].name!r} starts at step {late[0].start}, but the run ends after "
                             f"total_steps={self.total_steps}, so it would never train; use a schedule whose stages "
                             "start within the run (a custom {name, stages}), or a longer run")
        return self

    def schedule_object(self) -> Schedule:
        return schedule_from_config(self.schedule, plugins.schedules())

    @property
    def alpha_horizon(self) -> int | None:
        """The steps α decays over: ``alpha.steps``, else the run's ``total_steps`` (None: neither is set)."""
        return self.alpha.steps or self.total_steps

    def alpha_decay(self) -> LinearDecay:
        return LinearDecay(self.alpha.init, self.alpha.final, self.alpha_horizon or 1)

    @property
    def staged(self) -> bool:
        """Whether the reward's weights change with the step (a schedule of several stages)."""
        return len(self.schedule_object().stages) > 1

    @classmethod
    def from_mapping(cls, source: Any, run_steps: int | None = None, run_source: str = "the trainer") -> ShapingConfig:
        """From a dict, an OmegaConf node, JSON or YAML text, or the path of a JSON/YAML file.

        ``run_steps``: the optimizer steps the trainer will run (``run_source`` says which setting gives it),
        where the trainer knows it up front: an unset ``total_steps`` is filled from it, a different one is an
        error, so α's decay and the schedule's stages follow the run that actually happens.
        Raises ``ConfigError`` listing every bad field with its path and what is allowed.
        """
        data = as_mapping(source)
        if run_steps is not None and run_steps > 0 and isinstance(data, Mapping):
            data = with_run_steps(data, run_steps, run_source)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(_explain(exc)) from None


def with_run_steps(settings: Mapping[str, Any], run_steps: int, run_source: str) -> dict[str, Any]:
    """``settings`` with ``total_steps`` = ``run_steps``; a ``ConfigError`` when it says another number."""
    given = settings.get("total_steps")
    if given is not None and given != run_steps:
        raise ConfigError(f"total_steps: the config says {given}, but {run_source} runs {run_steps} optimizer steps; "
                          f"set total_steps: {run_steps} (or leave it out: it is filled in from the trainer)")
    return {**settings, "total_steps": run_steps}


STEP_REWARDS_FIELD = "turn_rewards"
"""The documented name of a row's per-turn rewards (``step_rewards.field``): a trainer's rows that carry it under a
config that reads none are refused, not ignored (``Shaper.refuse_unread_step_rewards``)."""

STEP_REWARDS_SETTING = "estimator_options.reward=sum"
"""The setting that makes GRPO, RLOO and PlanPO read per-turn rewards (their sum with the outcome), as every
message writes it (an adapter spells it its trainer's way by replacing this text)."""


def step_rewards_ignored(name: str, fn: Any) -> str:
    """Why estimator ``name`` would ignore per-turn rewards, and the setting that uses them (the one message)."""
    if "reward" in _option_names(fn):
        return (f"estimator {name!r} estimates from each trajectory's outcome (reward=outcome), so per-turn rewards "
                f"would be ignored; set {STEP_REWARDS_SETTING} (the outcome plus the per-turn rewards), or use "
                "estimator gigpo (each turn's discounted return)")
    return (f"estimator {name!r} reads one outcome per trajectory, so per-turn rewards would be ignored; use an "
            f"estimator that reads them (gigpo; grpo, rloo or planpo with {STEP_REWARDS_SETTING})")


def takes_alpha(fn: Any) -> bool:
    return "alpha" in _option_names(fn)


def _option_names(fn: Any) -> list[str]:
    params = list(inspect.signature(fn).parameters.values())[1:]  # the first takes the rollouts
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def check_estimator_options(name: str, fn: Any, options: Mapping[str, Any]) -> None:
    """Options must be named parameters of the estimator (α comes from the decay, not from the options);
    their values are then tried on a two-trajectory batch, so the estimator's own checks run at start-up."""
    from .advantages import Rollouts

    valid = [n for n in _option_names(fn) if n != "alpha"]
    params = inspect.signature(fn).parameters.values()
    if not any(p.kind is p.VAR_KEYWORD for p in params):
        unknown = sorted(set(options) - set(valid))
        if "alpha" in unknown:
            raise ValueError("set α through alpha: {init, final, steps}, not estimator_options")
        if unknown:
            raise ValueError(f"estimator_options: unknown option(s) {unknown} of estimator {name!r}; valid: {valid}")
    probe = Rollouts.build(["probe", "probe"], [1.0, 0.5], [True, True], [[3], [2, 4]], [["s"], ["s", "t"]])
    try:
        fn(probe, **options)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"estimator_options for {name!r}: {exc}") from None


def success_readable_from_reward(schedule: Schedule, component_weights: Mapping[str, float]) -> None:
    """The final pass can be read back from the scalar reward (what an estimator sees) exactly when, in every
    stage, the stage's maximum reward forces ``pass``: λ_pass > 0, or a commonsense and a hard component are
    both weighted; and no plugin component carries weight."""
    if any(w > 0 for w in component_weights.values()):
        raise ValueError("success.by='pass' cannot be read from the reward when plugin components carry weight; "
                         "use success: {by: threshold, threshold: ...}")
    for stage in schedule.stages:
        w = stage.weights
        forces = w.get("pass", 0) > 0 or ((w.get("cs_micro", 0) > 0 or w.get("cs_macro", 0) > 0)
                                          and (w.get("hard_micro", 0) > 0 or w.get("hard_macro", 0) > 0))
        if not forces:
            raise ValueError(f"schedule {schedule.name!r}, stage {stage.name!r}: its maximum reward does not imply the "
                             "final pass, so success.by='pass' cannot be read from the reward; weight 'pass' or use "
                             "success: {by: threshold, threshold: ...}")


def as_mapping(source: Any) -> Any:
    """Settings from an OmegaConf node, JSON/YAML text or a file path; anything else is returned as is."""
    if hasattr(source, "_metadata") and hasattr(source, "_get_node"):  # an OmegaConf node, without importing it
        from omegaconf import OmegaConf

        return OmegaConf.to_container(source, resolve=True)
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and
                                    (source.endswith((".json", ".yaml", ".yml")) or os.path.isfile(source))):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
        return _parse_text(text, str(path))
    if isinstance(source, str):
        return _parse_text(source, "config text")
    return source


def _parse_text(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import yaml
    except ImportError:
        raise ConfigError(f"{where}: not JSON, and YAML needs pyyaml (pip install pyyaml)") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: neither JSON nor YAML ({str(exc).splitlines()[0]})") from None


def _fields_at(model: type[BaseModel], loc: tuple) -> list[str] | None:
    """The allowed keys of the section that ``loc`` points into (for 'unknown key' messages)."""
    for part in loc[:-1]:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        annotation = getattr(field, "annotation", None)
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    return list(model.model_fields)


def _explain(exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        path = ".".join(str(p) for p in loc)
        if error["type"] == "extra_forbidden":
            allowed = _fields_at(ShapingConfig, loc)
            lines.append(f"{path}: unknown key" + (f"; allowed: {allowed}" if allowed else ""))
        elif error["type"] == "missing":
            lines.append(f"{path}: required")
        else:
            message = error["msg"].removeprefix("Value error, ")
            lines.append(f"{path}: {message}" if path else message)
    return "invalid planshape config:\n  " + "\n  ".join(lines)
