"""``planshape verl check``: compose the run's config with VERL's own Hydra config and say what will run.

Says first which of planshape's release-bound features the installed VERL runs and which need a newer one (the table
of ``support.py``), then catches before any GPU hour is spent: a VERL outside the range, the plugin entry point not
installed or excluded by ``VERL_USE_EXTERNAL_PLUGINS`` (0.7/0.8: ``VERL_USE_EXTERNAL_MODULES`` unset), a planshape
trainer or feature the release lacks, an estimator or reward manager name VERL's registries do not hold, a PlanPO
block that another estimator would ignore, a missing or invalid planshape block, a database that does not open or has
empty tables, data files that do not exist or whose rows the reward cannot read, a reward path that would score with
other settings than the estimator's success test, a staged schedule that no step would reach, and a tool YAML that
VERL's loader cannot build or that truncates tool responses below planshape's own limit.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planshape.shaping.facade import Report, check_shaper, read_query

from .config import BLOCK, FILE_KEY, verl_setting
from .support import ENTRY_POINT as PLUGINS
from .support import PLUGIN_MODULE, SUPPORT, TRAINER
from .version import check_version

ENTRY_POINT = PLUGIN_MODULE
REWARD_MODULE = "pkg://planshape.adapters.verl.reward"
REMOTE_MODULE = "pkg://planshape.adapters.verl.remote"


def compose(overrides: list[str]) -> Any:
    """VERL's ``ppo_trainer`` config with the overrides, composed the way ``verl.trainer.main_ppo`` does."""
    import verl.trainer
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    config_dir = str(Path(verl.trainer.__file__).parent / "config")
    try:
        with initialize_config_dir(config_dir=config_dir, version_base=None):
            return hydra_compose("ppo_trainer", overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as exc:
        raise ValueError(f"the overrides do not compose with VERL's config: {exc}".splitlines()[0]) from None


def _features(version: str, report: Report) -> None:
    """What this release runs of planshape's release-bound features, and what the others need."""
    for what, ok, gets in SUPPORT.rows(version):
        report.lines.append(f"{'runs' if ok else 'not in ' + version}: {what}" + ("" if ok else f" ({gets})"))


def _external_modules(report: Report) -> None:
    """VERL 0.7/0.8 load plugins only from ``VERL_USE_EXTERNAL_MODULES``, in each process that imports verl."""
    modules = [m.strip() for m in os.getenv("VERL_USE_EXTERNAL_MODULES", "").split(",") if m.strip()]
    if ENTRY_POINT not in modules:
        report.errors.append(f"VERL {SUPPORT.installed()} loads plugins only from VERL_USE_EXTERNAL_MODULES: export "
                             f"VERL_USE_EXTERNAL_MODULES={ENTRY_POINT} in the environment of the launch and of every "
                             "Ray worker (before `ray start`), or VERL will not know algorithm.adv_estimator=planpo")
        return
    _registered(report)


def _entry_point(report: Report) -> None:
    if not SUPPORT.has(PLUGINS):
        _external_modules(report)
        return
    eps = [ep for ep in metadata.entry_points(group="verl.plugins") if ep.value == ENTRY_POINT]
    if not eps:
        report.errors.append(f"no 'verl.plugins' entry point for {ENTRY_POINT} in this environment: reinstall "
                             "planshape here (pip install planshape / pip install -e .), in the interpreter the "
                             "Ray workers use")
        return
    policy = os.getenv("VERL_USE_EXTERNAL_PLUGINS", "auto").strip().lower()
    allowed = policy == "auto" or eps[0].name in {p.strip() for p in policy.split(",")}
    if not allowed:
        report.errors.append(f"VERL_USE_EXTERNAL_PLUGINS={policy!r} keeps VERL from loading the planshape plugin; "
                             f"unset it or add '{eps[0].name}'")
    _registered(report)


def _registered(report: Report) -> None:
    from .register import registered

    for what, ok in registered().items():
        if not ok:
            report.errors.append(f"{what} is not registered after `import verl`: set VERL_LOGGING_LEVEL=DEBUG "
                                 "and import verl to see the plugin's import error")


def _names(cfg: Any, report: Report) -> None:
    """The estimator and reward-manager names, against VERL's own registries (what it looks them up in)."""
    from verl.experimental.reward_loop.reward_manager import registry
    from verl.trainer.ppo import core_algos

    from .advantages import NAME

    estimator = str(cfg.algorithm.adv_estimator)
    known = sorted(core_algos.ADV_ESTIMATOR_REGISTRY)
    if estimator not in core_algos.ADV_ESTIMATOR_REGISTRY:
        close = difflib.get_close_matches(estimator, known, n=1)
        hint = f"did you mean algorithm.adv_estimator={close[0]}? " if close else ""
        report.errors.append(f"algorithm.adv_estimator={estimator} is not an estimator VERL knows ({hint}known: "
                             f"{', '.join(known)}); PlanPO is algorithm.adv_estimator={NAME}")
    manager = cfg.reward.reward_manager
    if manager.get("source", "register") == "register" and manager.name not in registry.REWARD_MANAGER:
        names = sorted(registry.REWARD_MANAGER)
        close = difflib.get_close_matches(str(manager.name), names, n=1)
        hint = f"did you mean reward.reward_manager.name={close[0]}? " if close else ""
        report.errors.append(f"reward.reward_manager.name={manager.name} is not a reward manager VERL knows ({hint}"
                             f"known: {', '.join(names)}); planshape's is reward.reward_manager.name=planshape")


def _estimator_block(cfg: Any, shaper: Any, report: Report) -> None:
    """A planshape block that asks for PlanPO (``estimator: planpo`` written out) under another VERL estimator
    would be read by nobody: say so. A block that leaves ``estimator`` unset is the reward's alone there."""
    from .advantages import NAME

    estimator = str(cfg.algorithm.adv_estimator)
    if estimator != NAME and shaper.config.estimator == NAME and "estimator" in shaper.config.model_fields_set:
        report.errors.append(f"algorithm.planpo asks for PlanPO (estimator: {NAME}) but "
                             f"algorithm.adv_estimator={estimator}, so VERL computes {estimator} advantages and "
                             f"never reads it: set algorithm.adv_estimator={NAME}, or +algorithm.planpo.estimator="
                             f"{estimator if estimator == 'grpo' else 'grpo'} to use the block for the reward only")


def _estimator_needs(cfg: Any, shaper: Any) -> list[str]:
    """What ``planpo`` needs from the block and a reward-only block may leave out (``total_steps``, a success
    readable from the reward); a planshape V1 trainer fills ``total_steps`` in from the run's length."""
    if str(cfg.algorithm.adv_estimator) != "planpo":
        return []
    needs = shaper.config.estimator_problems()
    if SUPPORT.has(TRAINER) and _v1(cfg) and cfg.trainer.v1.get("trainer_mode") in _planshape_modes():
        needs.pop("total_steps", None)
    return [f"algorithm.adv_estimator=planpo: {field}: {why} (+algorithm.planpo.{field}=...)"
            for field, why in needs.items()]


def _planshape_modes() -> tuple[str, ...]:
    from .trainer import MODES

    return tuple(MODES)


def _data(cfg: Any, shaper: Any, report: Report) -> None:
    """Each data file exists, has rows, and its first row's label is a query the reward reads."""
    for key in ("train_files", "val_files"):
        files = cfg.data.get(key)
        files = [files] if isinstance(files, str) else list(files or [])
        if not files:
            report.errors.append(f"data.{key} is not set: point it at the parquet `planshape verl prepare-data` "
                                 "writes")
        for name in map(str, files):
            if "://" in name:
                report.unchecked.append(f"data.{key}={name} (a remote file: VERL copies it to the worker)")
                continue
            path = Path(name).expanduser()
            if not path.is_file():
                fix = ("point it at your task's parquet" if shaper is not None and shaper.estimator_only else
                       "write it with `planshape verl prepare-data QUERIES -o DIR` (DIR/train.parquet, "
                       "DIR/val.parquet)")
                report.errors.append(f"data.{key}={name}: no such file; {fix}")
                continue
            _data_file(key, path, shaper, report)


def _data_file(key: str, path: Path, shaper: Any, report: Report) -> None:
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=None).slice(0, 1)
        rows = pq.ParquetFile(path).metadata.num_rows
    except Exception as exc:  # noqa: BLE001 - any reader failure is a problem with the user's file
        report.errors.append(f"data.{key}={path}: not a parquet file VERL can read ({type(exc).__name__}: {exc})")
        return
    if rows == 0:
        report.errors.append(f"data.{key}={path}: holds no rows (was it prepared with every query in the other "
                             "split? see prepare-data --val-size)")
        return
    own_task = shaper is not None and shaper.estimator_only  # the run's own data and reward: its columns are its own
    missing = [c for c in ("prompt", "reward_model") if c not in table.column_names]
    if missing and not own_task:
        report.errors.append(f"data.{key}={path}: no column {', '.join(missing)}; write it with `planshape verl "
                             "prepare-data`")
        return
    if shaper is not None and not own_task:
        label: Any = (table.column("reward_model").to_pylist()[0] or {}).get("ground_truth")
        try:
            read_query(label)  # the reward's own reading of a row's label
        except ValueError as exc:
            report.errors.append(f"data.{key}={path}: the first row's reward_model.ground_truth is not a query "
                                 f"the reward reads ({exc}); write the file with `planshape verl prepare-data`")
            return
    report.lines.append(f"data.{key}: {path} ({rows} rows)")


def _reward(cfg: Any, report: Report, estimator_config: Any) -> None:
    from .config import run_shaper, trainer_block

    manager = cfg.reward.reward_manager
    custom = cfg.reward.custom_reward_function
    ours = custom.get("path") in (REWARD_MODULE, REWARD_MODULE.replace("pkg://", ""))
    if custom.get("path") in (REMOTE_MODULE, REMOTE_MODULE.replace("pkg://", "")):
        _remote(custom, str(manager.name), report)
        return
    if manager.get("source") == "register" and manager.name == "planshape":
        block = trainer_block(cfg)
        report.lines.append("reward: the planshape manager, settings from algorithm.planpo, step from global_steps")
        if custom.get("path"):
            report.warnings.append(f"reward.custom_reward_function.path={custom.path} is not used by the planshape "
                                   "reward manager (it scores with algorithm.planpo)")
        if run_shaper(block).staged and not _v1(cfg):
            report.errors.append("a staged schedule needs the training step in the reward, which VERL provides only "
                                 "in the V1 trainers (0.9+): " + ("set trainer.use_v1=true" if SUPPORT.has(TRAINER)
                                                                  else f"upgrade ({SUPPORT.gate(TRAINER)})")
                                 + ", or use a one-stage schedule")
        return
    if ours:
        kwargs = custom.get("reward_kwargs") or {}
        block = kwargs.get("planshape")
        if block is None:
            report.errors.append("compute_score needs +reward.custom_reward_function.reward_kwargs.planshape.* "
                                 "settings (or use reward.reward_manager.name=planshape)")
            return
        reward_config = run_shaper(block).config
        if custom.get("name") != "compute_score":
            report.errors.append(f"reward.custom_reward_function.name={custom.get('name')}: the planshape function is "
                                 "compute_score")
        if manager.name not in ("naive",):
            report.warnings.append(f"reward manager {manager.name!r}: only 'naive' passes num_turns and tool fields")
        if run_shaper(block).staged:
            if kwargs.get("step") is None:
                report.errors.append("a staged schedule with compute_score under the naive manager would get no "
                                     "step: use reward.reward_manager.name=planshape")
            else:
                report.warnings.append(f"reward_kwargs.step={kwargs.get('step')} fixes the reward at one stage of a "
                                       "staged schedule for the whole run; reward.reward_manager.name=planshape "
                                       "follows the training step")
        judged = ("schedule", "component_weights", "success", "mode")  # what PlanPO's success test depends on
        if estimator_config is not None and any(getattr(reward_config, k) != getattr(estimator_config, k)
                                                for k in judged):
            report.errors.append("the reward's planshape settings (reward_kwargs.planshape) differ from "
                                 "algorithm.planpo: PlanPO would judge success under another schedule; use "
                                 "reward.reward_manager.name=planshape to keep one block")
        report.lines.append(f"reward: compute_score from {custom.path} under the {manager.name} manager")
        return
    if estimator_config is not None and estimator_config.estimator_only:
        report.lines.append(f"reward: the run's own ({manager.name} manager); planpo estimates from it, success by "
                            f"{estimator_config.success.by} (estimator-only: no TravelPlanner database)")
        return
    report.warnings.append("the reward is not planshape's (neither reward.reward_manager.name=planshape nor "
                           f"reward.custom_reward_function.path={REWARD_MODULE})")


def _remote(custom: Any, manager: str, report: Report) -> None:
    """The remote reward (``adapters/verl/remote.py``): its server settings, and the server reached once as the
    client reaches it at its first score (a wrong url or a missing token file fails here, not after launch)."""
    import asyncio

    from planshape.shaping.facade import as_mapping

    try:
        from .remote import _client
    except ImportError as exc:  # aiohttp, the client's only dependency, is missing here
        report.unchecked.append(f"the planshape server (the remote reward needs {exc.name!r})")
        return
    try:
        client = _client(as_mapping((custom.get("reward_kwargs") or {}).get("server")))
        asyncio.run(client.start())
    except ValueError as exc:  # ServerError included: unreachable, refused, a token file that is not there
        report.errors.append(f"reward.custom_reward_function.reward_kwargs.server: {exc}")
        return
    report.lines.append(f"reward: the planshape server at {client.url} (compute_score from {custom.path} under the "
                        f"{manager} manager; {len(client.metric_names)} metrics)")


def _tools(cfg: Any, report: Report, max_chars: int | None) -> None:
    multi_turn = cfg.actor_rollout_ref.rollout.multi_turn
    path = multi_turn.get("tool_config_path")
    if not path:
        report.warnings.append("no tool config (actor_rollout_ref.rollout.multi_turn.tool_config_path): the model "
                               "gets no TravelPlanner tools")
        return
    try:
        tools = load_tools(path, multi_turn.get("function_tool_path"))
    except Exception as exc:  # noqa: BLE001 - any loader failure is reported as the user's config problem
        report.errors.append(f"VERL's tool loader cannot build {path}: {type(exc).__name__}: {exc}")
        return
    report.lines.append(f"tools ({path}): {', '.join(t.name for t in tools)}")
    limit = multi_turn.get("max_tool_response_length")
    if max_chars is not None and limit is not None and limit < max_chars:
        report.warnings.append(f"actor_rollout_ref.rollout.multi_turn.max_tool_response_length={limit} cuts tool "
                               f"responses below planshape's {max_chars} characters (Planner-R1 used 8192)")
    if cfg.actor_rollout_ref.rollout.agent.get("default_agent_loop") != "tool_agent":
        report.warnings.append("actor_rollout_ref.rollout.agent.default_agent_loop is not tool_agent (rows prepared "
                               "by planshape name it per row, so this is fine for them)")


def load_tools(path: str, function_tool_path: Any) -> list[Any]:
    """VERL's own tool loader: ``tool_registry.load_all_tools`` (0.8+), ``utils.tool_registry`` before."""
    try:
        from verl.tools.tool_registry import load_all_tools
    except ImportError:  # 0.7: the loader ToolAgentLoop itself calls
        from verl.tools.utils.tool_registry import initialize_tools_from_config

        return initialize_tools_from_config(path)
    return load_all_tools(path, function_tool_path)


def _v1(cfg: Any) -> bool:
    """Whether the run uses VERL's V1 trainers (0.9: ``trainer.use_v1``, the default; none before)."""
    return SUPPORT.has(TRAINER) and bool(cfg.trainer.get("use_v1", True))


def _trainer(cfg: Any, report: Report, config: Any) -> None:
    """planshape's metrics reach VERL's training log only through a planshape V1 trainer (0.9)."""
    from .advantages import anchor_refusal, flag_refusal, step_reward_refusal
    from .config import run_shaper, trainer_block

    if not SUPPORT.has(TRAINER):
        if config is not None and config.success_flag is not None:
            report.errors.append(f"success.by=flag: {SUPPORT.gate(TRAINER)}")
        elif config is not None and run_shaper(trainer_block(cfg)).uses_anchors:
            report.errors.append(f"GiGPO's anchor states: {SUPPORT.gate(TRAINER)}")
        elif config is not None and config.step_rewards.field is not None:
            report.errors.append(f"step_rewards.field: {SUPPORT.gate(TRAINER)}")
        elif config is not None:
            report.warnings.append(f"VERL {SUPPORT.installed()} logs none of planshape's metrics while training "
                                   f"(validation only): {SUPPORT.gate(TRAINER)}")
        return
    from .trainer import MODES, TRAINER_NAME, configured_shaper

    mode = cfg.trainer.v1.get("trainer_mode")
    selected = _v1(cfg) and mode in MODES
    if config is not None and config.success_flag is not None and not selected:
        report.errors.append(flag_refusal(config.success_flag))
    if config is not None and not selected and run_shaper(trainer_block(cfg)).uses_anchors:
        report.errors.append(anchor_refusal(run_shaper(trainer_block(cfg))))
    if config is not None and not selected and config.step_rewards.field is not None:
        report.errors.append(step_reward_refusal(run_shaper(trainer_block(cfg))))
    if selected:
        groups = configured_shaper(cfg).config.metrics  # a ConfigError is reported as the block's
        report.lines.append(f"trainer: {mode} (VERL's {MODES[mode]} trainer; logs the planshape metric groups "
                            f"{list(groups)} at every step)")
        if MODES[mode] != "sync" and config is not None and config.success.by == "pass":
            report.lines.append("success: each row's acc from the planshape reward (an async row is scored at the "
                                "step it was rolled out for)")
        return
    if _v1(cfg) and mode in ("colocate_async", "separate_async"):
        report.warnings.append(f"trainer.v1.trainer_mode={mode}: VERL logs none of planshape's metrics while training; "
                               f"trainer.v1.trainer_mode={TRAINER_NAME}_{mode} is VERL's {mode} trainer that does")
        return
    if config is not None and (config.staged or cfg.algorithm.adv_estimator == "planpo"):
        which = f"trainer.v1.trainer_mode={mode}" if _v1(cfg) else "trainer.use_v1=false"
        report.warnings.append(f"{which}: VERL logs none of planshape's metrics while training (reward "
                               "components, failure categories, monitor rates, PlanPO statistics; only validation "
                               f"sees them): set trainer.use_v1=true trainer.v1.trainer_mode={TRAINER_NAME}")


def check_launch(launch: Sequence[str] = (), config: Any = None, run_steps: int | None = None) -> Report:
    """Everything ``planshape verl check`` verifies for the run's Hydra overrides (``launch``); ``config``: a
    planshape config file for the block (``+algorithm.planpo.config=FILE``), ``run_steps``: the run's length
    (``trainer.total_training_steps``), each where the overrides do not say. Raises ``ValueError`` only when the
    overrides cannot compose."""
    from planshape.shaping.facade import ConfigError

    overrides = list(launch)
    if config is not None:
        if not isinstance(config, (str, Path)):
            raise ValueError("VERL reads the planshape settings from the overrides (+algorithm.planpo.*) or a config "
                             f"file (+algorithm.planpo.config=FILE); got a {type(config).__name__}")
        overrides.append(f"+algorithm.{BLOCK}.{FILE_KEY}={config}")
    if run_steps is not None:
        overrides.append(f"trainer.total_training_steps={run_steps}")
    report = Report()
    version = check_version()
    report.lines.append(f"verl {version} (planshape supports {SUPPORT.range})")
    _features(version, report)
    import verl  # noqa: F401 - loads the verl.plugins entry points, as every Ray process does

    _entry_point(report)
    cfg = compose(overrides)
    from .config import run_shaper, trainer_block

    estimator = cfg.algorithm.adv_estimator
    report.lines.append(f"advantage estimator: {estimator}")
    _names(cfg, report)
    estimator_config = None
    shaper = None
    try:
        if cfg.algorithm.get("planpo") is not None or estimator == "planpo":
            shaper = run_shaper(trainer_block(cfg), cfg.trainer.get("total_training_steps"))
            estimator_config = shaper.config
            check_shaper(shaper, report, "planshape ")
            if estimator_config.database == "sample":
                report.warnings.append("algorithm.planpo.database=sample: rewards and tools use the bundled sample "
                                       "world, not TravelPlanner's database")
            _estimator_block(cfg, shaper, report)
            report.errors.extend(refused_settings(cfg, shaper))
            report.errors.extend(_estimator_needs(cfg, shaper))
        _reward(cfg, report, estimator_config)
        tool_config = estimator_config
        if tool_config is not None and tool_config.estimator_only:
            report.lines.append("tools: the run's own (estimator-only: planshape's TravelPlanner tools not used)")
        else:
            _tools(cfg, report, tool_config.tools.max_chars if tool_config is not None else None)
        _trainer(cfg, report, estimator_config)
    except ConfigError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        report.errors.append(verl_setting("planshape settings: " + " ".join(lines[:1]) + " " + "; ".join(lines[1:])))
    _data(cfg, shaper, report)
    return report


def refused_settings(cfg: Any, shaper: Any) -> list[str]:
    """VERL's reward and advantage settings that planshape would drop or get wrong (``settings_refused``)."""
    from .settings_refused import algorithm_refusals, reward_refusals

    manager = cfg.reward.reward_manager
    name = str(manager.name) if manager.get("source", "register") == "register" else "custom"
    out = algorithm_refusals(cfg.algorithm, shaper) if str(cfg.algorithm.adv_estimator) == "planpo" else []
    return out + reward_refusals(cfg, shaper, name)


if TYPE_CHECKING:  # the adapter contract (shaping/facade/contract.py)
    from planshape.shaping.facade import CheckLaunch

    _contract: CheckLaunch = check_launch
