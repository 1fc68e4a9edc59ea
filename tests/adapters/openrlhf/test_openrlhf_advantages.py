"""PlanPO inside OpenRLHF: the real ``BasePPOTrainer.train_step`` -> ``make_experience_batch`` ->
``split_rollout_samples`` -> the wrapped ``compute_advantages_and_returns`` on experiences that OpenRLHF's own agent
executor and samples generator produced; only the GPU model passes and the Ray actor groups are stood in for."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
import ray
import torch
from conftest import EXAMPLES, write_config
from openrlhf.trainer.ppo_trainer import BasePPOTrainer
from openrlhf.trainer.ppo_utils.samples_generator import SamplesGenerator
from openrlhf.trainer.ray.vllm_engine import _load_agent_executor
from openrlhf_harness import ScriptedEngine, forward_pass, launch, sampling_params, split_job
from planshape.adapters.openrlhf import CONFIG_ENV, SETUP_HOOK
from planshape.adapters.openrlhf.advantages import STEP, patch_openrlhf
from planshape.adapters.openrlhf.check import check_launch, parse_launch
from planshape.adapters.openrlhf.config import RAY_SETUP_HOOK_ENV
from planshape.shaping.facade import ConfigError, Shaper
from test_openrlhf_tools import FLIGHTS, HOTELS, PROMPT

from tests.adapters.metric_keys import GROUP_CHOICES, expected_keys, planshape_keys

N = 4  # samples per prompt


class ActorGroup:
    """Stands in for the Ray actor group of the policy (GPU workers): records what the trainer appends."""

    def __init__(self) -> None:
        self.appended: list = []

    def async_run_method_batch(self, method_name: str, experience: list) -> list:
        assert method_name == "append"
        self.appended.extend(experience)
        return []


@pytest.fixture
def curriculum_config(tmp_path, request) -> str:
    """The job's planshape config; a test may parametrize its metric groups (``indirect``)."""
    groups = getattr(request, "param", None)
    return write_config(tmp_path / "planshape.json", **({} if groups is None else {"metrics": list(groups)}))


@pytest.fixture
def hooked(curriculum_config, monkeypatch):
    """A process of a hooked job: the config in the env, Ray's setup-hook variable set, OpenRLHF patched."""
    monkeypatch.setenv(CONFIG_ENV, curriculum_config)
    monkeypatch.setenv(RAY_SETUP_HOOK_ENV, SETUP_HOOK)
    monkeypatch.setattr(ray, "get", lambda refs: refs)  # the stand-in groups return plain values
    patch_openrlhf()
    return Shaper.from_mapping(curriculum_config)


@pytest.fixture
def scripts(passing, over_budget):
    """Two prompts x 4 trajectories: (final answer, query, assistant turns), in rollout order."""
    answer, query = passing
    partial, cheap = over_budget
    longer = answer.replace("Done.", "Done. " + "Here is the plan I checked carefully. " * 6)
    return [([FLIGHTS, HOTELS, answer], query), ([answer], query), ([FLIGHTS, longer], query),
            ([FLIGHTS, "I give up."], query),
            ([partial], cheap), ([HOTELS, partial], cheap), ([FLIGHTS, FLIGHTS, partial], cheap), (["no idea"], cheap)]


@pytest.fixture
def rollout_samples(hooked, scripts, tokenizer):
    """What OpenRLHF's samples generator hands the trainer: one Experience per trajectory."""
    executor = _load_agent_executor(str(EXAMPLES / "agent_func.py"))

    async def run():
        return await asyncio.gather(*(
            executor.execute(PROMPT, json.dumps(query), sampling_params(), 100_000, tokenizer,
                             ScriptedEngine(tokenizer, turns)) for turns, query in scripts))

    responses = asyncio.run(run())
    return responses, [SamplesGenerator._process_response_into_experience(None, r, max_len=100_000)
                       for r in responses]


def trainer_args(tmp_path, *extra: str):
    _, argv = split_job(launch("planpo.sh", tmp_path))
    args = parse_launch([*argv, *extra])
    args.rollout.n_samples_per_prompt, args.rollout.micro_batch_size = N, 3  # micro-batches of 3, 3 and 2
    args.logger.tensorboard_dir = None  # the example logs to the cluster's shared disk
    return args


def make_trainer(args, tokenizer):
    trainer = BasePPOTrainer(SimpleNamespace(args=args), ActorGroup(), None, None, None, None, tokenizer)
    trainer.experience_maker.make_experience = forward_pass  # the model forwards run on GPUs
    trainer.ppo_train = lambda global_steps: {}  # the policy update runs on GPUs
    return trainer


def expected_advantages(shaper, scripts, responses, step, penalty=None):
    """The core's result, built independently of the wrapper: masks from the executor's action ranges (shifted
    as OpenRLHF aligns them with next-token log-probs), rewards scored from the scripted final turns;
    ``penalty(i, reward)``: the reward of trajectory ``i`` after a trainer setting's penalty."""
    width = max(len(r["observation_tokens"]) - 1 for r in responses)
    mask = torch.zeros(len(responses), width, dtype=torch.long)
    for row, response in enumerate(responses):
        for start, end in response["action_ranges"]:
            mask[row, start - 1:end - 1] = 1
    scored = shaper.score_batch([turns[-1] for turns, _ in scripts], [q for _, q in scripts], step)
    rewards = [s.reward if penalty is None else penalty(i, s.reward) for i, s in enumerate(scored)]
    result = shaper.advantages(torch.tensor(rewards), mask, [i // N for i in range(len(scripts))],
                               step, [s.success for s in scored])
    return result, scored


@pytest.mark.parametrize("step", [0, 250, 450])
def test_train_step_writes_the_cores_advantages_token_for_token(step, hooked, scripts, rollout_samples, tokenizer,
                                                                tmp_path):
    responses, samples = rollout_samples
    trainer = make_trainer(trainer_args(tmp_path), tokenizer)
    status, next_step = trainer.train_step(samples, step)
    assert next_step == step + 1 and getattr(trainer.experience_maker, STEP) == step
    experiences = trainer.actor_model_group.appended
    assert [len(e.index) for e in experiences] == [3, 3, 2]
    assert len({e.action_mask.shape[1] for e in experiences}) > 1  # micro-batches of different widths

    expected, scored = expected_advantages(hooked, scripts, responses, step)
    for exp in experiences:
        width = exp.action_mask.shape[1]
        for row, index in enumerate(exp.index):
            assert torch.equal(exp.advantages[row], expected.tokens[index, :width])
            assert not expected.tokens[index, width:].any()
            assert exp.rewards[row].item() == pytest.approx(scored[index].reward)  # staged at the trainer's step
        assert torch.equal(exp.returns, exp.advantages) and exp.kl is None
        assert exp.info["planshape/alpha"].tolist() == pytest.approx([hooked.alpha(step)] * len(exp.index))
        # every planshape metric and nothing else (OpenRLHF logs the info means per step)
        assert planshape_keys(exp.info) == expected_keys()
    # The rewards of each stage: pass = 5, 3, 1 in the curriculum's three stages.
    assert scored[1].reward == {0: 5.0, 250: 3.0, 450: 1.0}[step]
    assert status["rollout/reward_mean"] == pytest.approx(sum(s.reward for s in scored) / len(scored))


@pytest.mark.parametrize("curriculum_config", GROUP_CHOICES, ids="+".join, indirect=True)
def test_each_metric_group_changes_exactly_its_keys(curriculum_config, hooked, rollout_samples, tokenizer, tmp_path):
    _, samples = rollout_samples
    trainer = make_trainer(trainer_args(tmp_path), tokenizer)
    trainer.train_step(samples, 3)
    groups = hooked.config.metrics
    for exp in trainer.actor_model_group.appended:
        assert planshape_keys(exp.info) == expected_keys(groups)


def test_alpha_follows_the_recorded_step_and_rewards_brevity_among_successes(hooked, rollout_samples, tokenizer,
                                                                             tmp_path):
    alphas, final_turn = [], {}
    for step in (0, 499):
        _, samples = rollout_samples
        trainer = make_trainer(trainer_args(tmp_path), tokenizer)
        trainer.train_step([s for s in samples], step)
        rows = {i: (e, r) for e in trainer.actor_model_group.appended for r, i in enumerate(e.index)}
        alphas.append(rows[0][0].info["planshape/alpha"][rows[0][1]].item())
        # the advantage on the last token of each trajectory's final turn
        final_turn[step] = {i: e.advantages[r][e.action_mask[r].nonzero().max()].item() for i, (e, r) in rows.items()}
        for sample in samples:
            sample.index = None
    assert alphas == pytest.approx([hooked.alpha(0), hooked.alpha(499)]) and alphas[0] > alphas[1]
    # Among the group's successes, the one-turn answer gets more credit than the three-turn one.
    assert final_turn[0][1] > final_turn[0][0]


def test_a_kl_penalty_in_the_reward_fails_the_trainer_at_start_up(hooked, tokenizer, tmp_path):
    with pytest.raises(ConfigError, match="--algo.kl.use_loss"):
        make_trainer(trainer_args(tmp_path, "--algo.kl.init_coef", "0.01"), tokenizer)


def test_a_missing_config_fails_the_trainer_at_start_up(hooked, tokenizer, tmp_path, monkeypatch):
    monkeypatch.delenv(CONFIG_ENV)
    with pytest.raises(ConfigError, match=CONFIG_ENV):
        make_trainer(trainer_args(tmp_path), tokenizer)


def test_total_steps_is_checked_against_the_trainers_global_steps(hooked, tokenizer, tmp_path):
    """Where OpenRLHF's trainer has its prompts (PPOTrainer sets them before ``BasePPOTrainer.__init__``), the
    run's global steps are ceil(prompts / --rollout.batch_size) x --train.num_episodes (16 and 100 here)."""

    class WithPrompts(BasePPOTrainer):
        def __init__(self, prompts: int, *args, **kwargs) -> None:
            self.prompts_dataloader = SimpleNamespace(dataset=[{}] * prompts)
            super().__init__(*args, **kwargs)

    def build(prompts: int) -> None:
        WithPrompts(prompts, SimpleNamespace(args=trainer_args(tmp_path)), ActorGroup(), None, None, None, None,
                    tokenizer)

    with pytest.raises(ConfigError, match="runs 300 optimizer steps"):
        build(45)  # the config says total_steps 500
    build(80)  # ceil(80 / 16) x 100 = 500


# ---------------------------------------------------- OpenRLHF's reward settings: honoured or refused (issue 30)


def trained(samples, args, tokenizer):
    """Advantages and rewards by trajectory after one real ``train_step`` at step 0."""
    trainer = make_trainer(args, tokenizer)
    trainer.train_step(samples, 0)
    rows = {i: (e, r) for e in trainer.actor_model_group.appended for r, i in enumerate(e.index)}
    return ({i: e.advantages[r] for i, (e, r) in rows.items()}, {i: e.rewards[r].item() for i, (e, r) in rows.items()})


def assert_written(advantages, expected):
    for i, row in advantages.items():
        assert torch.equal(row, expected.tokens[i, :row.shape[0]]), i


def test_the_overlong_penalty_reaches_the_advantages(hooked, scripts, rollout_samples, tokenizer, tmp_path):
    """DAPO's overlong penalty (OpenRLHF ``--reward.overlong_buffer_len``): -min(len - (max_new - buffer), buffer)
    / buffer x factor on each response longer than max_new - buffer, and PlanPO estimates from that reward."""
    responses, samples = rollout_samples
    lengths = [int(s.response_length.item()) for s in samples]
    buffer, factor = 16, 2.0
    max_new = sorted(lengths)[len(lengths) // 2] + buffer  # the longer half of the trajectories is over
    args = trainer_args(tmp_path, "--reward.overlong_buffer_len", str(buffer),
                        "--reward.overlong_penalty_factor", str(factor))
    args.rollout.max_new_tokens = max_new

    def dapo(i: int, reward: float) -> float:
        over = min(lengths[i] - (max_new - buffer), buffer)
        return reward - over / buffer * factor if over > 0 else reward

    advantages, rewards = trained(samples, args, tokenizer)
    expected, scored = expected_advantages(hooked, scripts, responses, 0, dapo)
    plain, _ = expected_advantages(hooked, scripts, responses, 0)
    assert sum(dapo(i, s.reward) != s.reward for i, s in enumerate(scored)) >= 2  # the penalty bites
    assert rewards == pytest.approx({i: dapo(i, s.reward) for i, s in enumerate(scored)})
    assert not torch.equal(expected.tokens, plain.tokens)  # and changes what the policy is trained on
    assert_written(advantages, expected)


def test_the_stop_properly_penalty_reaches_the_advantages(hooked, scripts, rollout_samples, tokenizer, tmp_path):
    """ProRL's penalty (``--reward.stop_properly_penalty_coef c``): a truncated response's reward times c."""
    responses, _ = rollout_samples
    cut = {1, 5}  # vLLM's finish_reason "length" for these two trajectories
    samples = [SamplesGenerator._process_response_into_experience(None, {**r, "truncated": i in cut}, max_len=100_000)
               for i, r in enumerate(responses)]
    args = trainer_args(tmp_path, "--reward.stop_properly_penalty_coef", "0.25")
    advantages, rewards = trained(samples, args, tokenizer)
    expected, scored = expected_advantages(hooked, scripts, responses, 0, lambda i, r: r * 0.25 if i in cut else r)
    assert all(scored[i].reward > 0 for i in cut)  # the penalty changes these rewards
    assert rewards == pytest.approx({i: s.reward * (0.25 if i in cut else 1) for i, s in enumerate(scored)})
    assert_written(advantages, expected)


def test_the_reward_clip_range_bounds_every_advantage(hooked, scripts, rollout_samples, tokenizer, tmp_path):
    """``--reward.clip_range LOW HIGH`` bounds OpenRLHF's group-normalised reward, which under group_norm is every
    token's advantage: planshape's advantages are bounded the same way, and only where the mask is on."""
    responses, samples = rollout_samples
    advantages, _ = trained(samples, trainer_args(tmp_path, "--reward.clip_range", "-0.3", "0.5"), tokenizer)
    expected, _ = expected_advantages(hooked, scripts, responses, 0)
    on = expected.tokens != 0
    assert (expected.tokens[on] < -0.3).any() and (expected.tokens[on] > 0.5).any()  # the bounds bite both ways
    for i, row in advantages.items():
        want = expected.tokens[i, :row.shape[0]]
        assert torch.equal(row, torch.where(want != 0, want.clamp(-0.3, 0.5), want)), i


def test_reward_normalisation_is_refused_at_start_up_and_by_the_check(hooked, curriculum_config, tokenizer, tmp_path):
    """``--reward.normalize_enable`` normalises a reward model's scores; a planshape run has no reward model."""
    with pytest.raises(ConfigError, match="--reward.normalize_enable"):
        make_trainer(trainer_args(tmp_path, "--reward.normalize_enable"), tokenizer)
    _, argv = split_job(launch("planpo.sh", tmp_path))
    report = check_launch([*argv, "--reward.normalize_enable"], curriculum_config)
    assert any("--reward.normalize_enable" in e for e in report.errors), report.errors
