"""The facade every trainer adapter stands on: the only planshape module an adapter imports.

An adapter builds one ``Shaper`` per process from its trainer's settings (``Shaper.shared``, or
``Shaper.from_mapping``), then

* scores model outputs for a step: ``score`` / ``score_batch`` -> ``SampleScore`` (reward, success, metrics
  under fixed names, failure category and reason); model output never raises;
* turns (scores, assistant mask, group ids, step) into per-token advantages: ``advantages`` ->
  ``TokenAdvantages`` (the (B, L) tensor on the mask's device, and the statistics to log).

Step convention, stated once: ``step`` is the number of optimizer steps completed before the batch, so the
first batch is step 0 (VERL ``global_steps - 1``, TRL ``trainer_state.global_step``, OpenRLHF
``global_step``). Stage boundaries are half-open. See docs/adapter-kit.md.

``Shaper`` holds its parts, each an object built and tested alone: the reward (``planshape.shaping.reward.Scorer``),
the estimator (``estimator``), the agent side (``agent``: prompt, tools, tool calls as text), the process's resources
(``resources``: worker pool, verdict log) and the description (``describe``: ``describe`` / ``explain``). Beside
it, one module per concern: the data side as functions (``queries``, ``steps``, ``turns``: what trainers hand over),
``arguments`` and ``preflight`` (the commands and checks every adapter shares), ``contract`` (the adapter contract
as types), ``releases`` (the one version error and the trainer releases each adapter supports), ``environment`` (an
episode as the environment standards step it: verifiers, OpenEnv, TRL's ``environment_factory``).
"""

from ..components import NO_ANSWER, PASSED
from ..config import STEP_REWARDS_SETTING, ConfigError, ShapingConfig, StepRewardsIgnored, as_mapping
from ..hookspecs import hookimpl
from ..observe.metric_names import PREFIX, metric_name
from ..reward import read_query
from ..scores import SampleScore, TokenAdvantages
from ..splits import PLANNER_R1_VAL_SIZE
from .agent import MAX_TEXT_CALLS, TextCall, parse_tool_calls, response_text, tool_responses
from .arguments import (
    add_check_command,
    add_command_group,
    add_data_arguments,
    add_data_command,
    add_split_arguments,
    data_shaper,
    print_written,
)
from .contract import CheckLaunch, PrepareData, Rewards, RunShaper, TokenAdvantagesFn, renamed
from .environment import (
    MAX_CALLS_PER_TURN,
    MAX_TURNS,
    SPLITS,
    Call,
    Episode,
    Turns,
    check_limits,
    episode_records,
    shared_shaper,
    tool_function,
    turn_cap_reason,
)
from .preflight import Report, check_database, check_shaper
from .queries import (
    Written,
    gold_answer,
    query_json,
    query_splits,
    read_all_queries,
    read_queries,
    split_queries,
    write_jsonl,
)
from .releases import Feature, FeatureUnavailable, Support, UnsupportedRelease
from .shaper import Shaper
from .steps import steps_completed, trainer_step
from .turns import tool_call_anchors, turn_counts, turn_texts

__all__ = [
    "MAX_CALLS_PER_TURN", "MAX_TEXT_CALLS", "MAX_TURNS", "NO_ANSWER", "PASSED", "PLANNER_R1_VAL_SIZE", "PREFIX",
    "SPLITS", "STEP_REWARDS_SETTING", "Call", "CheckLaunch", "ConfigError", "Episode", "Feature", "FeatureUnavailable",
    "PrepareData", "Report", "RewardClient", "Rewards", "RunShaper", "SampleScore", "ServerError", "Shaper",
    "ShapingConfig", "StepRewardsIgnored", "Support", "TextCall", "TokenAdvantages", "TokenAdvantagesFn", "Turns",
    "UnsupportedRelease", "Written", "add_check_command", "add_command_group", "add_data_arguments",
    "add_data_command", "add_split_arguments", "as_mapping", "check_database", "check_limits", "check_shaper",
    "data_shaper", "episode_records", "gold_answer", "hookimpl", "metric_name", "parse_tool_calls", "print_written",
    "query_json", "query_splits", "read_all_queries", "read_queries", "read_query", "renamed", "response_text",
    "shared_shaper", "split_queries", "steps_completed", "tool_call_anchors", "tool_function", "tool_responses",
    "trainer_step", "turn_cap_reason", "turn_counts", "turn_texts", "write_jsonl",
]

_REMOTE = ("RewardClient", "ServerError")


def __getattr__(name: str):
    """The client of a ``planshape serve`` (``serve.client``), loaded on first use: it needs aiohttp."""
    if name in _REMOTE:
        from ..serve import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
