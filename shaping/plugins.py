"""A small facade over the pluggy plugin manager, built once per process on first use.

Plugins are found through the ``planshape`` entry-point group in every process that uses planshape
(Ray workers included, since each builds its own manager). Environment switches:

* ``PLANSHAPE_BLOCK_PLUGINS``: comma-separated plugin names not to load (``planshape.builtin`` included);
* ``PLANSHAPE_TRACE_HOOKS=1``: print every hook call and result to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import cache
from importlib import metadata
from typing import TYPE_CHECKING, Any, cast

import pluggy

from . import hookspecs

if TYPE_CHECKING:
    from planshape.validators.travelplanner.checks.registry import Check
    from planshape.validators.travelplanner.evaluation.relations import Relation

    from .advantages import Estimator
    from .schedules import Schedule

BUILTIN = "planshape.builtin"
BLOCK_ENV = "PLANSHAPE_BLOCK_PLUGINS"
TRACE_ENV = "PLANSHAPE_TRACE_HOOKS"


class PluginError(ValueError):
    """A plugin that cannot be used (misspelt hook, duplicate name); raised at start-up."""


@cache
def plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in filter(None, (n.strip() for n in os.environ.get(BLOCK_ENV, "").split(","))):
        pm.set_blocked(name)
    if not pm.is_blocked(BUILTIN):
        from . import builtin

        pm.register(builtin, name=BUILTIN)
    pm.load_setuptools_entrypoints(hookspecs.PROJECT)
    try:
        pm.check_pending()  # a misspelt @hookimpl fails here, naming the plugin and the hook
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {pm.get_name(exc.plugin)!r}: {exc}; the hooks are listed in docs/hooks.md") from None
    if os.environ.get(TRACE_ENV, "") not in ("", "0"):
        pm.trace.root.setwriter(lambda message: sys.stderr.write(message))
        pm.enable_tracing()
    return pm


def reset() -> None:
    """Forget the manager (tests; or after changing the environment switches)."""
    plugin_manager.cache_clear()


def _merged(results: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Reward components by name; a later-registered plugin overrides a name (the documented rule)."""
    merged: dict[str, Any] = {}
    for mapping in reversed(results):  # earlier-registered first, so later plugins override by name
        merged.update(mapping)
    return merged


def _named(hook: pluggy.HookCaller, what: str) -> dict[str, Any]:
    """Named objects from every plugin; a name defined by two plugins is a start-up error."""
    named: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for impl in hook.get_hookimpls():  # registration order: the built-ins first
        for name, obj in cast("Mapping[str, Any]", impl.function()).items():
            if name in named:
                raise PluginError(f"{what} {name!r} is defined by plugins {owner[name]!r} and {impl.plugin_name!r}; "
                                  "rename one, or block a plugin with PLANSHAPE_BLOCK_PLUGINS")
            named[name], owner[name] = obj, impl.plugin_name
    return named


def extract_answer(text: str) -> str | None:
    return plugin_manager().hook.planshape_extract_answer(text=text)


def checks() -> tuple[tuple[Check, ...], tuple[Check, ...]]:
    """(commonsense, hard) checks from every plugin; a key defined twice is a configuration error."""
    # pluggy answers last-registered first; reversed, the built-in checks come first, in their official order
    everything = [c for group in reversed(plugin_manager().hook.planshape_checks()) for c in group]
    seen: dict[str, Check] = {}
    for check in everything:
        if check.key in seen:
            raise PluginError(f"check {check.key!r} is provided by two plugins; rename one")
        if check.category not in ("commonsense", "hard"):
            raise PluginError(f"check {check.key!r}: category must be 'commonsense' or 'hard', got {check.category!r}")
        seen[check.key] = check
    return (tuple(c for c in everything if c.category == "commonsense"),
            tuple(c for c in everything if c.category == "hard"))


def audit_relations() -> tuple[Relation, ...]:
    """The metamorphic relations of every plugin, the built-ins first; a name defined twice is an error."""
    everything = [r for group in reversed(plugin_manager().hook.planshape_audit_relations()) for r in group]
    seen: set[str] = set()
    for relation in everything:
        if relation.name in seen:
            raise PluginError(f"audit relation {relation.name!r} is provided by two plugins; rename one")
        seen.add(relation.name)
    return tuple(everything)


def schedules() -> dict[str, Schedule]:
    return _named(plugin_manager().hook.planshape_schedules, "schedule")


def estimators() -> dict[str, Estimator]:
    return _named(plugin_manager().hook.planshape_advantage_estimators, "advantage estimator")


def reward_components(result, query) -> dict[str, float]:
    return _merged(plugin_manager().hook.planshape_reward_components(result=result, query=query))


def describe() -> list[tuple[str, list[str]]]:
    """Every loaded plugin with the hooks it implements."""
    pm = plugin_manager()
    out = []
    for name, plugin in pm.list_name_plugin():
        hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
        out.append((name, hooks))
    return out


def loaded() -> tuple[str, ...]:
    """The names of the plugins registered now (what a per-process cache of built objects must key on)."""
    return tuple(name for name, _ in plugin_manager().list_name_plugin())


def versions() -> dict[str, str]:
    """Every loaded plugin with the version of the distribution that ships it (the built-in: planshape's), so
    a run records which plugin versions made its rewards."""
    pm = plugin_manager()
    shipped = {id(plugin): dist.version for plugin, dist in pm.list_plugin_distinfo()}
    own = _own_version()
    return {name: shipped.get(id(plugin), own if name == BUILTIN else "unknown")
            for name, plugin in pm.list_name_plugin()}


def _own_version() -> str:
    try:
        return metadata.version("planshape")
    except metadata.PackageNotFoundError:  # a source checkout that is not installed
        return "unknown"
