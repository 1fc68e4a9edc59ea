"""Which trainer releases an adapter supports, and what each release gets: one table per trainer.

Every adapter's ``support.py`` holds a ``Support`` (the range, the releases CI tests, the release-bound features);
its version module, its ``check`` command, ``planshape plugins`` and the docs' support tables all read it, so a
claim about a release is made in one place (``tests/test_support_tables.py`` holds the docs to it). A release
outside the range is refused with one ``UnsupportedRelease`` line naming the range; inside it, a feature the
installed release lacks is refused alone (``FeatureUnavailable``), with what the release gets instead and what to
upgrade to.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata

from packaging.version import InvalidVersion, Version


class UnsupportedRelease(ImportError):
    """The trainer an adapter plugs into is missing, or a release outside the adapter's range: the message names
    the supported releases and what to install (an ``ImportError``, so ``importorskip`` and plugin loaders that
    skip unimportable plugins treat it as the missing dependency it is)."""


class UncheckedRelease(UserWarning):
    """A release inside an adapter's range whose minor line was not run through the contract checks."""


class FeatureUnavailable(RuntimeError):
    """A feature the installed release lacks (the rest of the adapter works)."""


@dataclass(frozen=True)
class Feature:
    """A release-bound capability: present from ``since`` on; below it the release gets ``below`` instead."""

    name: str
    what: str
    since: str
    below: str = "not available"
    instead: str = "no"  # the table's cell for a release below ``since``: what it gets, in a word or two


@dataclass(frozen=True)
class Support:
    """A trainer's supported range ``[oldest, before)`` and its release x feature table."""

    package: str  # the distribution, as pip names it
    label: str  # as the docs name the trainer
    oldest: str
    before: str  # the first release out of range (the next minor after the newest checked)
    columns: tuple[tuple[str, str], ...]  # the table's columns, oldest first: (label, first release of it)
    tested: tuple[str, ...]  # the releases CI runs the adapter suite against (oldest and newest)
    checked: tuple[str, ...] = ()  # a release of each claimed minor line (its newest patch), installed by the
    # setup script in a fresh venv and passed through the contract subset (scripts/check-releases.sh)
    unchecked: tuple[str, ...] = ()  # minor lines inside the range that no release in ``checked`` stands for:
    # not claimed (an import warns, naming the command that checks it); every line is one or the other
    # (tests/test_support_tables.py)
    features: tuple[Feature, ...] = ()
    everywhere: tuple[str, ...] = ()  # what works on every release of the range
    out_of_range: str = ""  # what older releases lack, for the docs (e.g. OpenRLHF's flat flags)
    extra: str = ""  # pip extra of the install line (VERL's ``verl-core``)
    notes: dict[str, str] = field(default_factory=dict)  # a footnote per feature name, for the docs

    @property
    def range(self) -> str:
        newest = Version(self.before).release
        return f"{self.oldest} to {newest[0]}.{newest[1] - 1}.x" if newest[1] else f"{self.oldest} to <{self.before}"

    @property
    def spec(self) -> str:
        name = f"{self.package}[{self.extra}]" if self.extra else self.package
        return f"{name}>={self.oldest},<{self.before}"

    def installed(self) -> str | None:
        try:
            return metadata.version(self.package)
        except metadata.PackageNotFoundError:
            return None

    def in_range(self, version: str) -> bool:
        try:
            return Version(self.oldest) <= _release(version) < Version(self.before)
        except InvalidVersion:
            return False

    def check(self, version: str | None = None) -> str:
        """The installed (or given) release, or ``UnsupportedRelease``: one line naming the range."""
        found = self.installed() if version is None else version
        if found is None:
            raise UnsupportedRelease(f"planshape's {self.label} adapter needs {self.label} {self.range}, which is not "
                                     f"installed: pip install '{self.spec}'")
        if not self.in_range(found):
            raise UnsupportedRelease(f"planshape's {self.label} adapter supports {self.label} {self.range}, found "
                                     f"{self.package} {found}: pip install '{self.spec}'")
        if _line(found) in self.unchecked:
            warnings.warn(f"{self.package} {found} is inside planshape's {self.label} range, but no {_line(found)}.x "
                          "release passed the adapter's contract checks (docs/releases.md); run `bash "
                          f"scripts/check-releases.sh {self.package} {found}` from a planshape checkout, or use one "
                          "of the checked lines "
                          f"({', '.join(self.lines())})", UncheckedRelease, stacklevel=2)
        return found

    def feature(self, name: str) -> Feature:
        for feature in self.features:
            if feature.name == name:
                return feature
        raise KeyError(f"{self.label} has no release-bound feature {name!r} (known: "
                       f"{', '.join(f.name for f in self.features)})")

    def has(self, name: str, version: str | None = None) -> bool:
        found = self.check(version)
        return _release(found) >= Version(self.feature(name).since)

    def gate(self, name: str, version: str | None = None) -> str | None:
        """None where the release has the feature, else the message: what it gets, what to upgrade to."""
        found = self.check(version)
        feature = self.feature(name)
        if _release(found) >= Version(feature.since):
            return None
        return (f"{feature.what} needs {self.label} >= {feature.since}; {self.package} {found} gets: {feature.below} "
                f"(upgrade: pip install '{self.package}>={feature.since},<{self.before}')")

    def require(self, name: str, version: str | None = None) -> None:
        message = self.gate(name, version)
        if message is not None:
            raise FeatureUnavailable(message)

    def rows(self, version: str | None = None) -> list[tuple[str, bool, str]]:
        """(feature, available, what this release gets) for every release-bound feature of the installed one."""
        found = self.check(version)
        out = []
        for feature in self.features:
            ok = _release(found) >= Version(feature.since)
            out.append((feature.what, ok, "yes" if ok else f"needs >= {feature.since}: {feature.below}"))
        return out

    def lines(self) -> list[str]:
        """The minor lines of the range that a release in ``checked`` stands for (``"0.8"``), oldest first."""
        return sorted({_line(v) for v in self.checked}, key=Version)

    def markdown(self) -> str:
        """The docs' release x feature table (``tests/test_support_tables.py`` checks every copy)."""
        head = f"| {self.label} {self.range} | " + " | ".join(label for label, _ in self.columns) + " |"
        lines = [head, "|---|" + "---|" * len(self.columns)]
        for what in self.everywhere:
            lines.append(f"| {what} | " + " | ".join("yes" for _ in self.columns) + " |")
        for feature in self.features:
            since = Version(feature.since)
            cells = ["yes" if Version(first) >= since else feature.instead for _, first in self.columns]
            note = f" ({self.notes[feature.name]})" if feature.name in self.notes else ""
            lines.append(f"| {feature.what}{note} | " + " | ".join(cells) + " |")
        lines.append(f"\nTested in CI: {', '.join(f'{self.package} {v}' for v in self.tested)}. "
                     + (f"Installed by the setup script and run through the contract subset "
                        f"(`scripts/check-releases.sh`), one release per minor line: {', '.join(self.checked)}. "
                        if self.checked else "")
                     + (f"Inside the range but not claimed, no release of it having passed that subset (an import "
                        f"warns): "
                        f"{', '.join(line + '.x' for line in self.unchecked)}. " if self.unchecked else "")
                     + f"Outside {self.range}: refused at import with the range and the install line."
                     + (f" {self.out_of_range}" if self.out_of_range else ""))
        return "\n".join(lines)


def _line(version: str) -> str:
    """A release's minor line: ``"0.8"`` for 0.8.0 (and its dev/rc/post builds)."""
    return ".".join(str(part) for part in _release(version).release[:2])


def _release(version: str) -> Version:
    """The release part only: a dev/rc/post/local build of 0.9.1 counts as 0.9.1."""
    return Version(Version(str(version)).base_version)


_BLOCK = re.compile(r"(<!-- support-table: (\w+) -->\n)(?:.*?\n)??(<!-- /support-table -->)", re.S)


def render(text: str, tables: Mapping[str, Support]) -> str:
    """``text`` with every block between ``<!-- support-table: NAME -->`` and ``<!-- /support-table -->``
    rewritten as ``tables[NAME].markdown()``."""
    return _BLOCK.sub(lambda m: m.group(1) + tables[m.group(2)].markdown() + "\n" + m.group(3), text)


def supports() -> dict[str, Support]:
    """The table of every installed adapter, by trainer package: each adapter's plugin module (its command group,
    registered under the ``planshape`` entry point) carries its ``SUPPORT``; no trainer is imported."""
    from ..plugins import plugin_manager

    tables = (getattr(plugin, "SUPPORT", None) for _, plugin in plugin_manager().list_name_plugin())
    return {table.package: table for table in tables if isinstance(table, Support)}
