"""The example launches parse with OpenRLHF 0.11.2's own argument parser, and their planshape settings validate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import EXAMPLES, write_config
from openrlhf_harness import launch, split_job
from planshape.adapters.openrlhf import CONFIG_ENV, SETUP_HOOK
from planshape.adapters.openrlhf.advantages import check_trainer_args
from planshape.adapters.openrlhf.check import parse_launch, text_args
from planshape.adapters.openrlhf.config import runtime_env
from planshape.shaping.cli import main
from planshape.shaping.facade import ConfigError, Shaper

SCRIPTS = {"grpo.sh": ("reward", "grpo"), "agent.sh": ("agent", "grpo"), "planpo.sh": ("agent", "planpo")}


def example_config(env: dict) -> dict:
    """The shipped config a launch names, with the database pointed at the bundled sample world."""
    name = Path(env["env_vars"][CONFIG_ENV]).name
    return {**json.loads((EXAMPLES / name).read_text()), "database": "sample"}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_example_parses_and_its_config_validates(script, tmp_path):
    kind, estimator = SCRIPTS[script]
    env, argv = split_job(launch(script, tmp_path))
    assert env["worker_process_setup_hook"] == SETUP_HOOK
    assert env == runtime_env(env["env_vars"][CONFIG_ENV])
    args = parse_launch(argv)
    # 2 nodes x 8 GPUs, GRPO-style groups, the estimator the hook requires, KL kept out of the reward.
    assert (args.actor.num_nodes, args.actor.num_gpus_per_node) == (2, 8)
    assert args.algo.advantage.estimator == "group_norm" and args.rollout.n_samples_per_prompt == 8
    check_trainer_args(args)
    if kind == "reward":
        assert args.reward.remote_url == ["/shared/planshape/reward_func.py"] and not args.train.agent_func_path
    else:
        assert args.train.agent_func_path == "/shared/planshape/agent_func.py" and args.reward.remote_url == ["agent"]
    shaper = Shaper.from_mapping(example_config(env))
    assert shaper.config.estimator == estimator
    assert len(shaper.describe()["stages"]) == 3  # the curriculum the hook rescores for


def test_a_kl_penalty_in_the_reward_is_refused_at_start_up(tmp_path):
    _, argv = split_job(launch("planpo.sh", tmp_path))
    args = parse_launch([*argv, "--algo.kl.init_coef", "0.01"])
    with pytest.raises(ConfigError, match="--algo.kl.use_loss"):
        check_trainer_args(args)
    check_trainer_args(parse_launch([*argv, "--algo.kl.init_coef", "0.01", "--algo.kl.use_loss"]))


def test_gae_is_refused_at_start_up(tmp_path):
    _, argv = split_job(launch("planpo.sh", tmp_path))
    argv[argv.index("group_norm")] = "gae"
    with pytest.raises(ConfigError, match="group_norm"):
        check_trainer_args(parse_launch(argv))


def test_the_parser_rejects_what_the_examples_must_not_contain(tmp_path):
    """OpenRLHF's own parser runs: a flat pre-0.10.2 flag is an argparse error, a failed assert a config error."""
    _, argv = split_job(launch("grpo.sh", tmp_path))
    with pytest.raises(ConfigError, match="argument parser"):
        parse_launch([*argv, "--advantage_estimator", "group_norm"])
    argv[argv.index("--rollout.n_samples_per_prompt") + 1] = "1"
    with pytest.raises(ConfigError, match="n_samples_per_prompt > 1"):
        parse_launch(argv)


def test_check_command_on_an_example_launch(curriculum_config, tmp_path, capsys):
    _, argv = split_job(launch("planpo.sh", tmp_path))
    assert main(["openrlhf", "check", "--config", curriculum_config, "--", *argv]) == 2
    assert "agent_func.py" in capsys.readouterr().err  # the files are not written yet
    files = tmp_path / "files"
    assert main(["openrlhf", "files", "-o", str(files), "--config", curriculum_config]) == 0
    argv[argv.index("--train.agent_func_path") + 1] = str(files / "agent_func.py")
    assert main(["openrlhf", "check", "--config", curriculum_config, "--", *argv]) == 0
    out = capsys.readouterr().out
    assert "openrlhf: agent" in out and "estimator: planpo" in out


def test_shipped_configs_are_valid_apart_from_their_database():
    for path in sorted(EXAMPLES.glob("*.json")):
        config = json.loads(path.read_text())
        with pytest.raises(ConfigError, match="database"):
            Shaper.from_mapping(config)  # /shared/... does not exist here
        Shaper.from_mapping({**config, "database": "sample"})


def test_total_steps_is_checked_against_the_launch_global_steps(tmp_path, capsys):
    """45 prompts, --rollout.batch_size 16, --train.num_episodes 100: ceil(45 / 16) x 100 = 300 global steps."""
    _, argv = split_job(launch("planpo.sh", tmp_path))
    prompts = tmp_path / "train.jsonl"
    prompts.write_text("".join(json.dumps({"prompt": "p", "label": "{}"}) + "\n" for _ in range(45)))
    argv[argv.index("--data.prompt_dataset") + 1] = str(prompts)
    files = tmp_path / "files"
    shipped = json.loads((EXAMPLES / "planshape.json").read_text())
    config = files / "planshape.json"
    for total_steps, rc in ((500, 2), (shipped["total_steps"], 0)):
        write_config(tmp_path / "c.json", total_steps=total_steps, schedule=shipped["schedule"])
        assert main(["openrlhf", "files", "-o", str(files), "--config", str(tmp_path / "c.json")]) == 0
        argv[argv.index("--train.agent_func_path") + 1] = str(files / "agent_func.py")
        assert main(["openrlhf", "check", "--config", str(config), "--", *argv]) == rc
    assert "runs 300 optimizer steps" in capsys.readouterr().err


def _checked(tmp_path, capsys, config: str, argv: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(["openrlhf", "check", "--config", config, "--", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _written(tmp_path, config: str, argv: list[str]) -> list[str]:
    files = tmp_path / "files"
    assert main(["openrlhf", "files", "-o", str(files), "--config", config]) == 0
    argv[argv.index("--train.agent_func_path") + 1] = str(files / "agent_func.py")
    return argv


def _without(argv: list[str], flag: str) -> list[str]:
    at = argv.index(flag)
    return argv[:at] + argv[at + 2:]


@pytest.mark.parametrize(("change", "problem", "fix"), [
    (lambda a: [*a, "--algo.advantage.estimator", "reinforce_baseline"],
     "--algo.advantage.estimator reinforce_baseline", "use --algo.advantage.estimator group_norm"),
    (lambda a: _without(a, "--train.agent_func_path"), "the launch names no planshape reward",
     "pass --reward.remote_url DIR/reward_func.py or --train.agent_func_path DIR/agent_func.py"),
])
def test_each_failing_launch_fails_the_preflight_naming_problem_and_fix(change, problem, fix, curriculum_config,
                                                                        tmp_path, capsys):
    """Each of these passed `planshape openrlhf check` before (rc 0); OpenRLHF would then run something else."""
    _, argv = split_job(launch("planpo.sh", tmp_path))
    rc, out, err = _checked(tmp_path, capsys, curriculum_config, change(_written(tmp_path, curriculum_config, argv)))
    errors = [line for line in err.splitlines() if line.startswith("planshape openrlhf check: error: ")]
    assert rc == 2 and any(problem in e and fix in e for e in errors), err


def test_an_empty_database_fails_the_preflight(tmp_path, capsys):
    (tmp_path / "db").mkdir()
    config = write_config(tmp_path / "c.json", schedule="stage1", database=str(tmp_path / "db"))
    _, argv = split_job(launch("grpo.sh", tmp_path))
    argv[argv.index("--reward.remote_url") + 1] = str(EXAMPLES / "reward_func.py")
    rc, out, err = _checked(tmp_path, capsys, config, argv)
    assert rc == 2 and "missing database file(s)" in err


def test_a_step_count_it_cannot_derive_is_said_not_passed_over(curriculum_config, tmp_path, capsys):
    _, argv = split_job(launch("planpo.sh", tmp_path))  # its prompt dataset is on a hub: steps unknown here
    rc, out, err = _checked(tmp_path, capsys, curriculum_config, _written(tmp_path, curriculum_config, argv))
    assert rc == 0 and "not checked here: total_steps against the launch's global steps" in err
    assert "ok: nothing to fix in what could be checked here" in out


def test_the_check_runs_where_vllm_is_not_installed(curriculum_config, tmp_path):
    """The machine a launch is prepared on: no vLLM, no DeepSpeed (a fresh process without the test stand-ins)."""
    import subprocess
    import sys

    _, argv = split_job(launch("planpo.sh", tmp_path))
    argv = _written(tmp_path, curriculum_config, argv)
    command = [sys.executable, "-m", "planshape.shaping.cli", "openrlhf", "check", "--config", curriculum_config, "--"]
    probe = "import importlib.util as u; print(u.find_spec('vllm') is None)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "True"
    done = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "not checked here: OpenRLHF's own parsing and validation of the flags" in done.stderr
    assert "'vllm', which is not installed here" in done.stderr and "Traceback" not in done.stderr
    assert "estimator: planpo" in done.stdout and "ok: nothing to fix in what could be checked here" in done.stdout
    missing = subprocess.run([*command, *_without(argv, "--train.agent_func_path"), "--reward.remote_url",
                              str(tmp_path / "nowhere.py")], capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "no such file: " + str(tmp_path / "nowhere.py") in missing.stderr
    # The flags the setup hook requires are read as text there: a wrong one is an error, not "not checked".
    wrong = subprocess.run([*command, *_without(argv, "--algo.advantage.estimator"), "--algo.advantage.estimator",
                            "reinforce_baseline"], capture_output=True, text=True, timeout=300)
    assert wrong.returncode == 2 and "use --algo.advantage.estimator group_norm" in wrong.stderr, wrong.stderr
    assert "Traceback" not in wrong.stderr


@pytest.mark.parametrize(("flags", "said"), [
    (["--algo.advantage.estimator", "reinforce_baseline"], "use --algo.advantage.estimator group_norm"),
    ([], "--algo.advantage.estimator gae"),  # OpenRLHF's default, when the flag is left out
    (["--algo.advantage.estimator", "group_norm"], "--rollout.n_samples_per_prompt >= 2 (got 1)"),
    (["--algo.advantage.estimator", "group_norm", "--rollout.n_samples_per_prompt", "8"], "--algo.kl.use_loss"),
])
def test_the_hooks_flags_read_as_text_are_refused_as_the_hook_refuses_them(flags, said):
    with pytest.raises(ConfigError, match=re.escape(said)):
        check_trainer_args(text_args(["--train.agent_func_path", "a.py", *flags]))
    check_trainer_args(text_args(["--algo.advantage.estimator", "group_norm", "--rollout.n_samples_per_prompt", "8",
                                  "--algo.kl.init_coef", "0"]))  # a launch the hook accepts
