"""Every example run composes with VERL's Hydra config and passes `planshape verl check`; broken configs fail
with a message that says what to fix."""

from __future__ import annotations

import pytest

from .conftest import require_verl

require_verl()

import os
import subprocess
import sys
from pathlib import Path

from planshape.adapters.verl.check import check_launch

from .conftest import EXAMPLES

SCRIPTS = sorted(p.name for p in EXAMPLES.glob("run_*.sh"))
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module", autouse=True)
def data_dir(tmp_path_factory):
    """The runs' DATA_DIR: the sample world's queries, prepared as the scripts' data step does."""
    from planshape.adapters.verl.config import run_shaper
    from planshape.adapters.verl.data import prepare_data

    out = tmp_path_factory.mktemp("data")
    prepare_data(run_shaper({"database": "sample", "estimator": "grpo"}), ["sample"], out, val_size=1)
    os.environ["DATA_DIR"] = str(out)
    yield out
    del os.environ["DATA_DIR"]


def overrides(script: str, *extra: str, database: str = "sample") -> list[str]:
    """The script's overrides, printed by the script itself (PLANSHAPE_PRINT_OVERRIDES=1)."""
    env = {k: v for k, v in os.environ.items() if k != "PLANSHAPE_CONFIG"}  # each script picks its own
    env.update(PLANSHAPE_DATABASE=database, PLANSHAPE_PRINT_OVERRIDES="1")
    out = subprocess.run(["bash", str(EXAMPLES / script), *extra], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.splitlines()


@pytest.fixture()
def worker_env(monkeypatch):
    monkeypatch.setenv("PLANSHAPE_DATABASE", "sample")


def test_there_are_the_five_runs():
    assert SCRIPTS == ["run_qwen3_32b_grpo_staged.sh", "run_qwen3_32b_planpo.sh", "run_qwen3_8b_grpo_staged.sh",
                       "run_qwen3_8b_planpo.sh", "run_qwen3_8b_planpo_1node.sh"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_example_composes_and_checks(script, worker_env, monkeypatch):
    args = overrides(script)
    config = next(a.split("=", 1)[1] for a in args if a.startswith("+algorithm.planpo.config="))
    monkeypatch.setenv("PLANSHAPE_CONFIG", config)
    report = check_launch(args)
    assert report.errors == []
    text = "\n".join(report.lines)
    assert "reward: the planshape manager" in text and "tools (" in text and "search_flights" in text
    estimator = "planpo" if "planpo" in script else "grpo"
    assert f"advantage estimator: {estimator}" in text
    boundaries = "100" if "8b" in script else "50"
    assert f"'from_step': {boundaries}" in text and "'from_step': 400" in text
    assert report.warnings == ["algorithm.planpo.database=sample: rewards and tools use the bundled sample world, "
                               "not TravelPlanner's database"]
    assert "trainer: planshape (VERL's sync trainer; logs the planshape metric groups ['core', 'components', " \
           "'failures', 'monitor', 'advantages'] at every step)" in text


@pytest.mark.parametrize(("extra", "lost"), [
    ("trainer.v1.trainer_mode=sync", "trainer.v1.trainer_mode=sync: VERL logs none of planshape's metrics"),
    ("trainer.use_v1=false", "trainer.use_v1=false: VERL logs none of planshape's metrics"),
])
def test_another_trainer_is_told_what_it_loses(extra, lost, worker_env, monkeypatch):
    for script in ("run_qwen3_8b_planpo.sh", "run_qwen3_8b_grpo_staged.sh"):  # PlanPO; staged rewards
        args = overrides(script, extra)
        monkeypatch.setenv("PLANSHAPE_CONFIG", next(a.split("=", 1)[1] for a in args
                                                     if a.startswith("+algorithm.planpo.config=")))
        report = check_launch(args)
        assert any(w.startswith(lost) and w.endswith("trainer.v1.trainer_mode=planshape") for w in report.warnings)
        assert not any(line.startswith("trainer: planshape") for line in report.lines)


def test_paper_hyperparameters_are_in_the_runs():
    args = set(overrides("run_qwen3_8b_planpo.sh"))
    for expected in ("data.train_batch_size=16", "actor_rollout_ref.rollout.n=8",
                     "actor_rollout_ref.actor.optim.lr=1e-6", "actor_rollout_ref.actor.clip_ratio=0.2",
                     "actor_rollout_ref.actor.use_kl_loss=False",
                     "data.max_response_length=30500", "actor_rollout_ref.rollout.multi_turn.max_assistant_turns=30",
                     "actor_rollout_ref.rollout.multi_turn.max_tool_response_length=8192", "trainer.nnodes=2",
                     "trainer.n_gpus_per_node=8", "actor_rollout_ref.rollout.val_kwargs.temperature=0"):
        assert expected in args
    assert "trainer.nnodes=1" in overrides("run_qwen3_8b_planpo_1node.sh")


@pytest.mark.parametrize(("extra", "message"), [
    (["+algorithm.planpo.schedul=stage2"], "schedul: unknown key"),
    (["++algorithm.planpo.estimator=ppo"], "unknown advantage estimator 'ppo'"),
    (["++algorithm.planpo.database=/nowhere"], "does not exist"),
    (["trainer.use_v1=False"], "trainer.use_v1=true"),
    (["reward.reward_manager.name=naive", "reward.custom_reward_function.path=pkg://planshape.adapters.verl.reward",
      "+reward.custom_reward_function.reward_kwargs.planshape.database=sample",
      "+reward.custom_reward_function.reward_kwargs.planshape.schedule=curriculum-8b",
      "+reward.custom_reward_function.reward_kwargs.planshape.total_steps=500"], "would get no step"),
    (["trainer.total_training_steps=450"], "trainer.total_training_steps runs 450 optimizer steps"),
])
def test_broken_configs_fail_with_what_to_fix(extra, message, worker_env, monkeypatch):
    monkeypatch.setenv("PLANSHAPE_CONFIG", str(EXAMPLES / "planshape-8b.yaml"))
    report = check_launch(overrides("run_qwen3_8b_planpo.sh", *extra))
    assert any(message in e for e in report.errors), report.errors


def test_a_config_that_does_not_compose_is_a_value_error():
    with pytest.raises(ValueError, match="do not compose"):
        check_launch(["algorithm.planpo.database=x"])  # a new key without Hydra's '+'


def test_plugins_switched_off_is_reported(worker_env, monkeypatch):
    monkeypatch.setenv("PLANSHAPE_CONFIG", str(EXAMPLES / "planshape-8b.yaml"))
    monkeypatch.setenv("VERL_USE_EXTERNAL_PLUGINS", "some_other_plugin")
    report = check_launch(overrides("run_qwen3_8b_planpo.sh"))
    assert any("VERL_USE_EXTERNAL_PLUGINS" in e and "add 'planshape'" in e for e in report.errors), report.errors


def test_a_run_script_checks_before_launching_and_the_cli_fails_with_one_line():
    env = {k: v for k, v in os.environ.items() if k != "PLANSHAPE_CONFIG"}
    env.update(PLANSHAPE_DATABASE="sample", PLANSHAPE_CHECK_ONLY="1", PYTHON=sys.executable)
    ok = subprocess.run(["bash", str(EXAMPLES / "run_qwen3_32b_planpo.sh")], env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert "ok: nothing to fix" in ok.stdout and "'from_step': 50" in ok.stdout
    env = {**env, "PLANSHAPE_CONFIG": str(EXAMPLES / "planshape-32b.yaml")}
    cli = [sys.executable, "-m", "planshape.shaping.cli", "verl", "check"]
    bad = subprocess.run([*cli, *overrides("run_qwen3_32b_planpo.sh", "+algorithm.planpo.mode=lenient")], env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2
    errors = [line for line in bad.stderr.splitlines() if line.startswith("planshape verl check: error: ")]
    assert len(errors) == 1 and "planshape settings: " in errors[0] and "mode: Input should be" in errors[0]
    assert bad.stderr.strip().splitlines()[-1] == "planshape verl check: 1 problem(s) to fix before launching"


def test_a_compute_score_reward_must_judge_like_the_estimator(worker_env, monkeypatch):
    monkeypatch.setenv("PLANSHAPE_CONFIG", str(EXAMPLES / "planshape-8b.yaml"))
    reward = ["reward.reward_manager.name=naive",
              "reward.custom_reward_function.path=pkg://planshape.adapters.verl.reward",
              "+reward.custom_reward_function.reward_kwargs.planshape.database=sample",
              "+reward.custom_reward_function.reward_kwargs.planshape.estimator=grpo",
              "+reward.custom_reward_function.reward_kwargs.step=0"]
    same = check_launch(overrides("run_qwen3_8b_planpo.sh", *reward,
                           "+reward.custom_reward_function.reward_kwargs.planshape.schedule=curriculum-8b"))
    assert same.errors == [] and any("compute_score from pkg://" in line for line in same.lines)
    other = check_launch(overrides("run_qwen3_8b_planpo.sh", *reward,
                            "+reward.custom_reward_function.reward_kwargs.planshape.schedule=stage3"))
    assert any("differ from algorithm.planpo" in e for e in other.errors), other.errors


def test_an_example_checks_clean_against_the_travelplanner_database(shared_dir, monkeypatch):
    database = str(shared_dir / "database")
    monkeypatch.setenv("PLANSHAPE_DATABASE", database)
    monkeypatch.setenv("PLANSHAPE_CONFIG", str(EXAMPLES / "planshape-8b.yaml"))
    report = check_launch(overrides("run_qwen3_8b_grpo_staged.sh", database=database))
    assert (report.errors, report.warnings) == ([], [])
    assert f"planshape database: {database}" in report.lines


def _cli_check(args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    """``planshape verl check ARGS`` (the CLI's own entry point, in this process): rc, stdout, stderr."""
    from planshape.shaping.cli import main

    monkeypatch.setenv("PLANSHAPE_CONFIG", str(EXAMPLES / "planshape-8b.yaml"))
    monkeypatch.setenv("PLANSHAPE_DATABASE", "sample")
    capsys.readouterr()
    rc = main(["verl", "check", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize(("extra", "problem", "fix"), [
    (["algorithm.adv_estimator=planp"], "algorithm.adv_estimator=planp is not an estimator VERL knows",
     "did you mean algorithm.adv_estimator=planpo?"),
    (["reward.reward_manager.name=planshap"], "reward.reward_manager.name=planshap is not a reward manager VERL knows",
     "did you mean reward.reward_manager.name=planshape?"),
    (["algorithm.adv_estimator=gae"], "algorithm.planpo asks for PlanPO",
     "set algorithm.adv_estimator=planpo, or +algorithm.planpo.estimator=grpo"),
    (["++algorithm.planpo.database={empty}"], "missing database file(s)", "database"),
    (["++algorithm.planpo.database={hollow}"], "table(s) accommodations, attractions, cities, distances, flights, "
     "restaurants hold no rows", "point database at the full TravelPlanner database directory"),
    (["data.train_files={tmp}/nowhere/train.parquet"], "nowhere/train.parquet: no such file",
     "planshape verl prepare-data QUERIES -o DIR"),
    (["data.val_files={tmp}/empty.parquet"], "empty.parquet: holds no rows", "--val-size"),
    (["data.val_files={tmp}/labels.parquet"], "reward_model.ground_truth is not a query", "prepare-data"),
])
def test_each_failing_launch_fails_the_preflight_naming_problem_and_fix(extra, problem, fix, tmp_path, monkeypatch,
                                                                        capsys):
    """Each of these passed `planshape verl check` with "ok" (rc 0) before; VERL would fail on them later."""
    import pandas as pd
    from planshape.validators.travelplanner.sample import sample_database

    (tmp_path / "empty").mkdir()
    hollow = tmp_path / "hollow"  # every file of the official layout, headers only
    for source in Path(sample_database()).rglob("*"):
        if source.is_file():
            target = hollow / source.relative_to(sample_database())
            target.parent.mkdir(parents=True, exist_ok=True)
            lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
            target.write_text("".join(lines[:1]) if source.suffix == ".csv" else "", encoding="utf-8")
    pd.DataFrame({"prompt": [], "reward_model": []}).to_parquet(tmp_path / "empty.parquet")
    pd.DataFrame({"prompt": [[{"role": "user", "content": "x"}]],
                  "reward_model": [{"ground_truth": "not a query"}]}).to_parquet(tmp_path / "labels.parquet")
    names = {"empty": tmp_path / "empty", "hollow": hollow, "tmp": tmp_path}
    args = overrides("run_qwen3_8b_planpo.sh", *(e.format(**names) for e in extra))
    rc, out, err = _cli_check(args, monkeypatch, capsys)
    errors = [line for line in err.splitlines() if line.startswith("planshape verl check: error: ")]
    assert rc == 2, out[-1500:] + err[-1500:]
    assert any(problem in e and fix in e for e in errors), errors
    assert "ok:" not in out


def test_the_examples_pass_the_cli_preflight(monkeypatch, capsys):
    rc, out, err = _cli_check(overrides("run_qwen3_8b_planpo.sh"), monkeypatch, capsys)
    assert rc == 0, err[-2000:]
    assert "ok: nothing to fix" in out and "data.train_files:" in out
    assert "database rows: accommodations" in out
