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

One module per concern: ``shaper`` (the two jobs), ``success`` (the success rule both share), ``carried``
(checked once, weighed at another step), ``metrics`` (the names a run logs),
``agent`` (prompt, tools, tool calls as text), ``queries`` and ``steps`` (what trainers hand over),
``describe`` (``describe`` / ``explain``), ``resources`` (worker pool, verdict log), ``arguments`` and
``preflight`` (what every adapter's commands share), ``releases`` (the one version error).
"""

from ..components import NO_ANSWER, PASSED
from ..config import ConfigError, ShapingConfig, as_mapping
from ..hookspecs import hookimpl
from ..observe.metric_names import PREFIX, metric_name
from ..scores import SampleScore, TokenAdvantages
from .agent import MAX_TEXT_CALLS, parse_tool_calls, tool_responses
from .arguments import add_check_arguments, add_data_arguments, add_split_arguments, data_shaper, print_written
from .preflight import Report, check_database, check_shaper
from .queries import read_all_queries
from .releases import UnsupportedRelease
from .shaper import Shaper

__all__ = [
    "MAX_TEXT_CALLS", "NO_ANSWER", "PASSED", "PREFIX", "ConfigError", "Report", "SampleScore", "Shaper",
    "ShapingConfig", "TokenAdvantages", "UnsupportedRelease", "add_check_arguments", "add_data_arguments",
    "add_split_arguments", "as_mapping", "check_database", "check_shaper", "data_shaper", "hookimpl", "metric_name",
    "parse_tool_calls", "print_written", "read_all_queries", "tool_responses",
]
