"""A plugin whose check sleeps, hangs past signals, spins or kills its process (by a word in the query text),
installed as a real entry-point distribution in a temporary folder, and a scorer factory for the pool's workers.
Shared by the core suite and every adapter suite (each scores through its trainer's own path with it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

PLUGIN = '''
import os, signal, time
from planshape.shaping.hookspecs import hookimpl
from planshape.validators.travelplanner.checks.registry import Check


def _probe(trip):
    text = trip.query.query or ""
    if "HANG" in text:  # stuck where no signal reaches it (as in one long C call): only a kill stops it
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(60)
    if "SLEEP" in text:
        time.sleep(60)
    if "SPIN" in text:
        while True:
            pass
    if "DIE" in text:
        os.kill(os.getpid(), signal.SIGKILL)
    return True, "no stall"


@hookimpl
def planshape_checks():
    return (Check("stall_probe", "Stall probe", "commonsense", _probe),)
'''


def install_stall_plugin(folder: Path) -> Path:
    """Write the plugin module and its ``planshape`` entry point into ``folder`` (to put on sys.path)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "stall_probe_plugin.py").write_text(PLUGIN)
    dist = folder / "stall_probe_plugin-0.1.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: stall-probe-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[planshape]\nstall_probe = stall_probe_plugin\n")
    return folder


@pytest.fixture
def stall_plugin(tmp_path, monkeypatch):
    """The stall probe, found through its entry point here and in every worker started meanwhile."""
    from planshape.shaping import plugins

    monkeypatch.syspath_prepend(str(install_stall_plugin(tmp_path / "plugin")))
    plugins.reset()
    yield
    plugins.reset()


def sample_scorer(mode: str = "strict"):
    """A worker's scorer over the bundled sample world: ``score(text, query, step)``."""
    from planshape.shaping.reward import Scorer
    from planshape.validators.travelplanner.sample import sample_database
    from planshape.validators.travelplanner.store.sqlite import open_store

    return Scorer(open_store(str(sample_database())), mode).score


def sample_rows() -> list[dict]:
    from planshape.validators.travelplanner.sample import sample_dir

    return [json.loads(line) for line in (sample_dir() / "rollouts.jsonl").read_text().splitlines() if line]


def with_word(row: dict, word: str) -> dict:
    """The row with ``word`` in its query text (what the stall probe reacts to)."""
    query = dict(row["query"])
    query["query"] = f"{query['query']} {word}"
    return {**row, "query": query}
