"""The support tables (``adapters/<trainer>/support.py``): one claim per release, held to in the docs, the setup
scripts and CI's suites; a release outside a range is refused in one line naming it; a feature the installed
release lacks says what that release gets and what to upgrade to. No trainer is needed here."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from packaging.version import Version
from planshape.shaping.facade import FeatureUnavailable, UnsupportedRelease
from planshape.shaping.facade.releases import render, supports

ROOT = Path(__file__).resolve().parents[1]
TABLES = supports()
# Where the docs show each table (``python scripts/support_tables.py`` rewrites them from the code).
DOC_TABLES = {"docs/releases.md": ("verl", "trl", "openrlhf"), "adapters/verl/examples/README.md": ("verl",),
              "docs/trl.md": ("trl",), "adapters/openrlhf/examples/README.md": ("openrlhf",)}


def test_every_adapter_brings_its_table():
    assert sorted(TABLES) == ["openrlhf", "trl", "verl"]  # through the plugin modules: no trainer imported


@pytest.mark.parametrize("doc", sorted(DOC_TABLES))
def test_every_doc_shows_the_tables_as_the_code_states_them(doc):
    text = (ROOT / doc).read_text()
    shown = re.findall(r"<!-- support-table: (\w+) -->", text)
    assert shown == list(DOC_TABLES[doc]), f"{doc} must show the support tables of {DOC_TABLES[doc]}"
    assert render(text, TABLES) == text, f"{doc}'s support tables are stale: run `python scripts/support_tables.py`"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_release_outside_the_range_is_one_line_naming_it(name):
    support = TABLES[name]
    older = f"0.{int(support.oldest.split('.')[1]) - 1}.0" if support.oldest.startswith("0.") else "0.1.0"
    for version in (older, support.before, f"{support.before}.3", "not-a-version"):
        with pytest.raises(UnsupportedRelease) as refused:
            support.check(version)
        message = str(refused.value)
        assert "\n" not in message and support.range in message and f"pip install '{support.spec}'" in message
        assert version in message
    for version in (support.oldest, *support.tested, f"{support.oldest}.post1", f"{support.tested[-1]}rc1"):
        assert support.check(version) == version


def test_verl_on_0_7_gets_every_feature_it_has_and_names_what_needs_0_9():
    verl = TABLES["verl"]
    rows = verl.rows("0.7.1")
    assert [ok for _, ok, _ in rows] == [False] * len(verl.features)  # everything release-bound is 0.9's
    assert all("needs >= 0.9.0" in gets for _, _, gets in rows)
    assert all(ok for _, ok, _ in verl.rows("0.9.1"))
    message = verl.gate("planshape_trainer", "0.7.1")
    assert message.startswith("the `planshape` trainer")
    assert "verl 0.7.1 gets: planshape metrics in validation only" in message
    assert "pip install 'verl>=0.9.0,<0.10'" in message
    with pytest.raises(FeatureUnavailable, match="VERL_USE_EXTERNAL_MODULES=planshape.adapters.verl.register"):
        verl.require("entry_point", "0.8.0")
    assert verl.gate("entry_point", "0.9.0") is None
    with pytest.raises(KeyError, match="known: entry_point"):
        verl.gate("no-such-feature", "0.9.1")


def test_trl_the_reward_reaches_back_to_0_20_and_the_trainer_to_1_9():
    trl = TABLES["trl"]
    assert trl.check("0.20.0") == "0.20.0"
    with pytest.raises(UnsupportedRelease, match="supports TRL 0.20.0 to 1.16.x, found trl 0.19.1"):
        trl.check("0.19.1")  # its reward functions get no trainer_state: no step for a staged schedule
    assert trl.has("log_metric", "1.0.0") and not trl.has("log_metric", "0.29.1")
    assert "log_metrics_to(trainer)" in trl.gate("log_metric", "0.22.2")
    assert not trl.has("planpo_trainer", "1.8.0") and trl.has("planpo_trainer", "1.9.0")


def test_openrlhf_flat_flag_releases_are_out_of_range():
    openrlhf = TABLES["openrlhf"]
    with pytest.raises(UnsupportedRelease, match=r"supports OpenRLHF 0\.10\.2 to 0\.11\.x, found openrlhf 0\.10\.1"):
        openrlhf.check("0.10.1")
    assert "flat flags" in openrlhf.markdown()


def test_ci_runs_every_adapter_on_the_releases_its_table_says_are_tested():
    listed = subprocess.run(["bash", "scripts/test.sh", "--list"], cwd=ROOT, capture_output=True, text=True,
                            timeout=60, check=True).stdout.split("\n")
    runs = {tuple(line.split()[1:3]) for line in listed if line and not line.startswith("core")}
    for name, support in TABLES.items():
        for release in support.tested:
            assert (name, release) in runs, f"scripts/test.sh runs no suite of {name} {release}"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_minor_line_of_the_range_is_checked_or_named_unchecked(name):
    """A range spans the minor lines from its oldest release's to the one before ``before``: each is claimed by a
    release in ``checked`` (installed by the setup script, run through the contract subset by
    scripts/check-releases.sh) or named in ``unchecked`` (not claimed: an import warns), with no line left out (a
    new major starts at .0). The oldest and the newest line, CI's, are always checked."""
    support = TABLES[name]
    assert all(support.in_range(release) for release in support.checked)
    checked = [Version(line) for line in support.lines()]
    unchecked = [Version(line) for line in support.unchecked]
    assert not set(checked) & set(unchecked), f"{name}: a line both checked and unchecked"
    lines = sorted(checked + unchecked)
    oldest, before = Version(support.oldest), Version(support.before)
    assert checked and checked[0].release[:2] == oldest.release[:2], f"{name}: the oldest line {oldest} was not run"
    if before.minor:
        newest = (before.major, before.minor - 1)
        assert checked[-1].release[:2] == newest, f"{name}: the newest line {newest} was not run"
    for a, b in zip(lines, lines[1:], strict=False):
        assert (b.major, b.minor) in ((a.major, a.minor + 1), (a.major + 1, 0)), f"{name}: no line between {a} and {b}"
    for release in support.tested:
        assert release in support.checked, f"{name}: CI's {release} is run through the same setup and subset"


def test_an_unchecked_line_warns_and_a_checked_one_does_not():
    import warnings

    from planshape.shaping.facade.releases import UncheckedRelease

    for support in TABLES.values():
        for release in support.checked:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert support.check(release) == release
        for line in support.unchecked:
            with pytest.warns(UncheckedRelease, match=rf"check-releases.sh {support.package} {line}.0`"):
                assert support.check(f"{line}.0") == f"{line}.0"


def test_the_check_script_runs_each_adapters_contract_subset():
    for name in TABLES:
        listed = subprocess.run(["bash", "scripts/test.sh", "--contract", name], cwd=ROOT, capture_output=True,
                                text=True, timeout=60, check=True).stdout.split()
        assert listed and all((ROOT / "tests" / "adapters" / name / f).is_file() for f in listed), listed
    usage = subprocess.run(["bash", "scripts/check-releases.sh"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and "verl|trl|openrlhf RELEASE" in usage.stderr
    outside = subprocess.run(["bash", "scripts/check-releases.sh", "verl", "0.6.1"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)  # the setup script refuses it before installing anything
    assert outside.returncode == 1 and "FAIL verl 0.6.1" in outside.stdout and "outside" in outside.stdout
