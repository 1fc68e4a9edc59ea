"""Every planshape config an adapter ships validates against the published schema and ShapingConfig
(the databases are user paths, so they are pointed at the sample world first)."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from planshape.shaping.config import ShapingConfig

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted(p for p in ROOT.glob("adapters/*/examples/*") if p.suffix in (".yaml", ".yml", ".json")
                 and p.stem.startswith(("planshape", "shaping")))


def test_each_adapter_ships_a_config():
    assert {p.parts[-3] for p in CONFIGS} == {"verl", "trl", "openrlhf"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_config_validates(path):
    data = json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())
    data = {**data, "database": "sample"}
    data.setdefault("total_steps", 500)  # TRL fills it from --max_steps
    jsonschema.validate(data, ShapingConfig.model_json_schema())
    assert ShapingConfig.from_mapping(data).staged  # every shipped config trains a curriculum
