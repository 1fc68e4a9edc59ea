"""ShapingConfig: every configuration mistake fails at start-up naming the field and the allowed values."""

import json

import pytest
from planshape.shaping.cli import main
from planshape.shaping.config import ConfigError, ShapingConfig

GOOD = {"database": "sample", "total_steps": 500}


def error(**changes) -> str:
    with pytest.raises(ConfigError) as info:
        ShapingConfig.from_mapping({**GOOD, **changes})
    return str(info.value)


def test_defaults_are_the_papers():
    config = ShapingConfig.from_mapping(GOOD)
    assert (config.alpha.init, config.alpha.final) == (0.1, 0.05)  # PlanPO: α_init = 2·α_final = 0.1
    assert config.alpha_decay()(0) == 0.1 and config.alpha_decay()(500) == pytest.approx(0.05)
    assert (config.mode, config.estimator, config.success.by) == ("strict", "planpo", "pass")


@pytest.mark.parametrize(("changes", "expected"), [
    ({"estimater": "grpo"}, "estimater: unknown key; allowed: ['database', 'backend', 'mode'"),
    ({"alpha": {"init": 0.1, "stpes": 3}}, "alpha.stpes: unknown key; allowed: ['init', 'final', 'steps']"),
    ({"success": {"by": "pass", "treshold": 1}}, "success.treshold: unknown key; allowed: ['by', 'threshold', 'flag']"),
    ({"estimator": "ppo"}, "estimator: unknown advantage estimator 'ppo'; known: ['gigpo', 'grpo', 'planpo', 'rloo']"),
    ({"schedule": "curriculum-9b"}, "schedule: unknown schedule 'curriculum-9b'; choose one of ['agent-star-macro'"),
    ({"schedule": {"stages": [{"start": 5, "weights": "stage1"}]}}, "the first stage must start at step 0"),
    ({"mode": "lenient"}, "mode: Input should be 'official' or 'strict'"),
    ({"backend": "gpu"}, "backend: Input should be 'auto', 'memory' or 'sqlite'"),
    ({"estimator_options": {"groupin": "task"}},
     "estimator_options: unknown option(s) ['groupin'] of estimator 'planpo'; valid: ['grouping', 'norm', 'eps'"),
    ({"estimator_options": {"grouping": "turns"}}, "unknown PlanPO grouping 'turns'; choose one of ('index-final'"),
    ({"estimator_options": {"norm": "l2"}}, "unknown PlanPO norm 'l2'; choose 'std' or 'none'"),
    ({"estimator_options": {"alpha": 0.3}}, "set α through alpha: {init, final, steps}"),
    ({"estimator": "grpo", "estimator_options": {"grouping": "task"}},
     "unknown option(s) ['grouping'] of estimator 'grpo'; valid: ['norm_by_std', 'eps', 'reward']"),
    ({"alpha": {"init": 0.05, "final": 0.1}}, "alpha: need finite 0 <= final <= init"),
    ({"total_steps": 0}, "total_steps: Input should be greater than 0"),
    ({"success": {"by": "threshold"}}, "success: give 'threshold' exactly when by='threshold'"),
    ({"success": {"by": "first"}}, "success.by: Input should be 'pass', 'threshold' or 'flag'"),
    ({"component_weights": {"pass": 2.0}}, "'pass' is weighted by the schedule"),
    ({"answer": {"max_chars": 0}}, "answer.max_chars: Input should be greater than 0"),
    ({"tools": {"max_chars": -1}}, "tools.max_chars: Input should be greater than 0"),
])
def test_each_mistake_names_the_field_and_what_is_allowed(changes, expected):
    assert expected in error(**changes)


@pytest.mark.parametrize(("changes", "expected"), [
    ({"total_steps": None}, "total_steps: estimator 'planpo' decays α over the run"),
    ({"schedule": {"stages": [{"start": 0, "weights": [1, 0, 0, 0, 0]}]}},
     "success: schedule 'custom', stage 'stage1': its maximum reward does not imply the final pass"),
    ({"component_weights": {"mine": 1.0}}, "success: success.by='pass' cannot be read from the reward when plugin"),
])
def test_what_only_estimating_needs_is_asked_by_the_routes_that_estimate(changes, expected):
    """A reward function, the server, an environment or a rollout only score: a config that leaves out what the
    estimator needs serves them as written. Every route that estimates asks first, naming the field."""
    from planshape.shaping.facade import Shaper, read_queries

    config = ShapingConfig.from_mapping({**GOOD, **changes})  # valid for scoring
    assert expected.split(":")[0] in config.estimator_problems()
    with pytest.raises(ConfigError, match="cannot estimate advantages") as refused:
        config.require_estimator("the trainer")
    assert expected in str(refused.value) and "for the trainer" in str(refused.value)
    shaper = Shaper(config)
    assert shaper.score("no plan", read_queries("sample")[0], 0).failure == "no_answer"
    for estimate in (lambda: shaper.advantages([1.0, 0.0], __import__("torch").ones(2, 3), [0, 0], 0),
                     lambda: shaper.alpha(0)):
        with pytest.raises(ConfigError, match=expected.split(":")[0]):
            estimate()
    grpo = ShapingConfig.from_mapping({**GOOD, **changes, "estimator": "grpo"})
    assert grpo.estimator_problems() == {}  # GRPO neither decays α nor reads success


def test_database_must_exist(tmp_path):
    message = error(database=str(tmp_path / "nowhere"))
    assert "database: " in message and "does not exist" in message and "'sample'" in message
    missing = {k: v for k, v in GOOD.items() if k != "database"}  # estimator-only: TravelPlanner fields refused
    with pytest.raises(ConfigError, match="set without a database, so nothing would use it"):
        ShapingConfig.from_mapping({**missing, "mode": "official"})


def test_every_error_is_reported_at_once():
    message = error(mode="x", backend="y", estimater=1)
    assert all(f"{field}:" in message for field in ("mode", "backend", "estimater"))


def test_grpo_needs_no_alpha_horizon_nor_a_pass_readable_schedule():
    config = ShapingConfig.from_mapping({"database": "sample", "estimator": "grpo",
                                         "schedule": {"stages": [{"start": 0, "weights": [1, 0, 0, 0, 0]}]}})
    assert config.estimator == "grpo"


def test_threshold_success_allows_any_schedule():
    config = ShapingConfig.from_mapping({**GOOD, "success": {"by": "threshold", "threshold": 0.5},
                                         "schedule": {"stages": [{"start": 0, "weights": [1, 0, 0, 0, 0]}]}})
    assert config.success.threshold == 0.5


def test_from_json_yaml_text_files_and_omegaconf(tmp_path):
    as_json = json.dumps({**GOOD, "schedule": "curriculum-8b"})
    as_yaml = "database: sample\ntotal_steps: 500\nschedule: curriculum-8b\n"
    (tmp_path / "c.json").write_text(as_json)
    (tmp_path / "c.yaml").write_text(as_yaml)
    configs = [ShapingConfig.from_mapping(x) for x in (as_json, as_yaml, tmp_path / "c.json", str(tmp_path / "c.yaml"))]
    assert {c.schedule for c in configs} == {"curriculum-8b"}
    omegaconf = pytest.importorskip("omegaconf")
    node = omegaconf.OmegaConf.create({**GOOD, "alpha": {"init": 0.2, "final": 0.1}})
    assert ShapingConfig.from_mapping(node).alpha.init == 0.2
    with pytest.raises(ConfigError, match="cannot read config file"):
        ShapingConfig.from_mapping(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="neither JSON nor YAML"):
        ShapingConfig.from_mapping("database: [unclosed\n")


def test_cli_config_check_good_and_bad(tmp_path, capsys):
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text("database: sample\ntotal_steps: 500\nschedule: curriculum-8b\n")
    bad.write_text("database: sample\ntotal_steps: 500\nestimator: planpo\nestimator_options: {grouping: turn}\n")
    assert main(["config", "check", str(good)]) == 0
    out = capsys.readouterr().out
    assert "valid planshape config" in out and "steps [100, 400)" in out and "curriculum-8b" in out
    assert "to estimate advantages" not in out
    scoring = tmp_path / "scoring.yaml"  # valid for a reward alone; what estimating would still need is said
    scoring.write_text("database: sample\nschedule: curriculum-8b\n")
    assert main(["config", "check", str(scoring)]) == 0
    assert "to estimate advantages, set total_steps" in capsys.readouterr().out
    assert main(["config", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("planshape config: error: invalid planshape config") and "unknown PlanPO grouping" in err


def test_cli_config_schema_validates_configs(capsys):
    import jsonschema

    assert main(["config", "schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    jsonschema.validate({**GOOD, "alpha": {"init": 0.1}, "tools": {"max_chars": 4096}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**GOOD, "estimater": "grpo"}, schema)
