"""``planshape openrlhf files`` / ``prepare-data`` and the supported-version check."""

from __future__ import annotations

import json
from importlib import metadata

import pytest
from openrlhf.utils.agent import SingleTurnAgentExecutor
from planshape.adapters.openrlhf import CONFIG_ENV, version
from planshape.shaping.cli import main
from planshape.shaping.facade import Shaper, releases


def test_files_writes_what_openrlhf_loads_and_a_validated_config(stage1_config, tmp_path, monkeypatch, passing):
    out = tmp_path / "files"
    assert main(["openrlhf", "files", "-o", str(out), "--config", stage1_config]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["agent_func.py", "planshape.json", "reward_func.py"]
    assert Shaper.from_mapping(str(out / "planshape.json")).config == Shaper.from_mapping(stage1_config).config
    monkeypatch.delenv(CONFIG_ENV, raising=False)  # the files find planshape.json beside them
    reward_func = SingleTurnAgentExecutor(str(out / "reward_func.py")).reward_func
    answer, query = passing
    assert float(reward_func([answer], [""], [json.dumps(query)])["rewards"]) == 5.0


def test_files_refuses_a_bad_config(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"database": "sample", "estimator": "ppo"}))
    assert main(["openrlhf", "files", "-o", str(tmp_path / "out"), "--config", str(bad)]) == 2
    assert "estimator" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_prepare_data_rows_round_trip_into_the_reward(shared_dir, stage1_config, tmp_path):
    out = tmp_path / "train.jsonl"
    assert main(["openrlhf", "prepare-data", str(shared_dir / "train.csv"), "-o", str(out),
                 "--config", stage1_config]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 45
    shaper = Shaper.from_mapping(stage1_config)
    for row in rows[:5]:
        assert [m["role"] for m in row["prompt"]] == ["system", "user"] and "<tool_call>" in row["prompt"][0]["content"]
        label = json.loads(row["label"])
        assert row["prompt"][1]["content"] == label["query"]
        scored = shaper.score("no plan", row["label"], 0)  # the label is a query the reward accepts
        assert scored.failure == "no_answer"


@pytest.mark.parametrize("installed", ["0.10.1", "0.10.0", "0.12.0"])  # 0.10.0-0.10.1: the flat flags
def test_an_unsupported_openrlhf_is_refused_with_what_to_install(installed, monkeypatch):
    monkeypatch.setattr(releases.metadata, "version", lambda name: installed)
    with pytest.raises(ImportError, match=rf"supports OpenRLHF 0\.10\.2 to 0\.11\.x, found openrlhf {installed}: "
                                          r"pip install 'openrlhf>=0\.10\.2,<0\.12'$"):
        version.check_version()


def test_a_missing_openrlhf_is_refused_with_what_to_install(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(releases.metadata, "version", missing)
    with pytest.raises(ImportError, match="not installed"):
        version.check_version()


def test_the_installed_version_is_supported():
    assert version.check_version() == metadata.version("openrlhf")
    assert version.SUPPORT.in_range(metadata.version("openrlhf"))
