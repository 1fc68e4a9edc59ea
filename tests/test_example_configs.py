"""Every planshape config an adapter ships, as written: it validates against the published schema and
ShapingConfig where its database is there; where the database is a value its README tells the user to fill in
(a cluster path), the config is refused naming it, and filled in (that value alone replaced) it validates. What
estimating needs and a config leaves out is only what the trainer fills in (TRL: ``total_steps`` from max_steps)."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from planshape.shaping.config import ConfigError, ShapingConfig

from tests.shared_data import require_shared

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted(p for p in ROOT.glob("adapters/*/examples/*") if p.suffix in (".yaml", ".yml", ".json")
                 and p.stem.startswith(("planshape", "shaping")))
FILL_IN = "/shared/travelplanner/database"  # the cluster path the OpenRLHF examples' README says to set
FILLED_BY_THE_TRAINER = {"trl": {"total_steps"}}  # GRPOConfig.max_steps; the others state the run's length


def test_each_adapter_ships_a_config():
    assert {p.parts[-3] for p in CONFIGS} == {"verl", "trl", "openrlhf"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_config_validates_as_written(path, monkeypatch):
    monkeypatch.chdir(ROOT)  # a relative database is the checkout's (TRL's ../shared/travelplanner/database)
    data = json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())
    if data["database"] == FILL_IN:
        with pytest.raises(ConfigError, match=f"'{FILL_IN}' does not exist"):
            ShapingConfig.from_mapping(data)
        data = {**data, "database": str(require_shared() / "database")}
    elif data["database"] != "sample":
        require_shared()
    jsonschema.validate(data, ShapingConfig.model_json_schema())
    config = ShapingConfig.from_mapping(data)
    assert config.staged  # every shipped config trains a curriculum
    assert set(config.estimator_problems()) <= FILLED_BY_THE_TRAINER.get(path.parts[-3], set())
