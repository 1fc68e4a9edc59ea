"""What each estimator teaches: a small policy trained on a synthetic multi-turn task with planshape's own
estimators, several seeds, success, turns and tokens per turn with 95% intervals.

    python benchmarks/learning_loop.py [--seeds 8] [--steps 150] [--plot learning_loop.png] [--shapes both]
                                       [--task saturating|rising] [--tables both|outcome|steps]

The task (docs/learning-loop.md). An episode needs k facts (k = 1, 2 or 3, the same for the 8 rollouts of a
group, visible to the policy). Each turn the policy picks an action and a verbosity v (0..3):

* ``query``: a tool call that finds the next missing fact with probability QUERY_HIT[v];
* ``idle``: a turn that changes nothing (a redundant look-up, "look around");
* ``answer``: ends the episode; it succeeds (reward 10, else 0: the PlanPO paper's) only if every fact was
  found first, and then with probability ANSWER_HIT[v].

``--task saturating`` (default; PlanPO's premise): the tersest turns (v = 0) often miss, and beyond v = 1 more
tokens buy nothing. ``--task rising``: every extra level of verbosity buys a little more success, so a length
term trades success for brevity.

A turn's tokens are its shape's tokens for v, times U(0.75, 1.25). After MAX_TURNS turns the episode fails.
Two shapes: ``equal`` (ALFWorld-like: every turn, the answer too, 16..128 tokens) and ``long-final``
(TravelPlanner-like: short tool calls, then a plan of 200..1,600 tokens).

The policy is tabular (softmax logits per state for the action, per state and action for the verbosity; the
state is (k, facts found)), trained from uniform by Adam on the per-turn policy gradient with the paper's
per-turn normalisation (Eq. 9: 1 / sum of turns), one update per batch of 8 groups of 8. Every estimator is
called through ``Shaper.estimate`` (the configured estimator function the trainers call, options and α decay
from a config). The final policy is evaluated on fresh episodes. GiGPO's anchor state is the environment's
state id (facts found). The unconditional length penalty is GRPO on R - 0.01 x tokens, failures penalised too.
Exits 1 when the default PlanPO takes more turns than GRPO in a shape, or (``saturating``) succeeds less, beyond
the intervals.

The per-step table (``--tables steps``): the same task (``equal`` shape) where turns are rewarded besides the
outcome, +1 for a query that finds a fact (progress) and -1 for an idle turn (a wasted action, ALFWorld's
invalid-action penalty): the estimators that read per-turn rewards (GRPO, RLOO, PlanPO with ``reward: sum``;
GiGPO's discounted step returns, with and without its step term, and with verl-agent's conventions), and GRPO with
the per-turn rewards withheld (what dropping them costs). Each policy is also evaluated after EARLY updates
(learning speed), on episodes of its own; then whether GiGPO's step term helps: per seed, GiGPO minus GiGPO with
omega = 0, with 95% intervals.
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from planshape.shaping.advantages import Rollouts, planpo
from planshape.shaping.facade import Shaper
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

REWARD, GROUP, GROUPS, MAX_TURNS, EVAL_EPISODES = 10.0, 8, 8, 12, 4096
QUERY, IDLE, ANSWER = 0, 1, 2
VERBOSITY = 4
TASKS = {  # (QUERY_HIT, ANSWER_HIT) by verbosity 0..3
    "saturating": (np.array([0.5, 0.92, 0.92, 0.92]), np.array([0.7, 0.96, 0.96, 0.96])),
    "rising": (np.array([0.5, 0.9, 0.93, 0.94]), np.array([0.7, 0.95, 0.97, 0.975])),
}
TOOL_TOKENS = np.array([16, 32, 64, 128])
SHAPES = {"equal": TOOL_TOKENS, "long-final": np.array([200, 400, 800, 1600])}  # the answer turn's tokens
NEEDS = (1, 2, 3)
STATES = len(NEEDS) * 4  # (k, facts found 0..3)
LENGTH_PENALTY = 0.01  # per token, on every trajectory
LR = 0.05
STEP_REWARDS = {"found": 1.0, "idle": -1.0}  # the per-step table: progress per fact found, a wasted turn's penalty
EARLY = 40  # the per-step table also evaluates each policy after this many updates (learning speed)
# Student t quantiles t_{0.975, df} for df = 1..30 (the 95% interval of a mean over few seeds); normal beyond
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
ANY_TASK = {"success": {"by": "threshold", "threshold": REWARD}}
DEFAULT_GROUPING = inspect.signature(planpo).parameters["grouping"].default
DEFAULT = f"PlanPO {DEFAULT_GROUPING} (default)"


def estimators(steps: int) -> dict[str, dict[str, Any]]:
    """Name -> planshape config. PlanPO with the paper's α (0.1 -> 0.05 over the run), under each grouping."""
    planpo_ = {**ANY_TASK, "estimator": "planpo", "total_steps": steps}
    groupings = {f"PlanPO {g}" + (" (default)" if g == DEFAULT_GROUPING else ""): g
                 for g in ("index-success", "index", "task", "index-final")}
    return {
        "GRPO": {"estimator": "grpo"},
        **{name: {**planpo_, "estimator_options": {"grouping": g}} for name, g in groupings.items()},
        "A^E alone (α = 0)": {**planpo_, "alpha": {"init": 0.0, "final": 0.0}},
        "GiGPO": {"estimator": "gigpo"},
        "RLOO": {"estimator": "rloo"},
        "length penalty": {"estimator": "grpo"},  # on the penalised reward (``penalised``)
    }


def step_estimators(steps: int) -> dict[str, tuple[dict[str, Any], bool]]:
    """The per-step table: name -> (planshape config, whether the per-turn rewards are withheld from it)."""
    gigpo = {"estimator": "gigpo"}
    total = {"reward": "sum"}
    return {
        "GRPO, outcome only (dropped)": ({"estimator": "grpo"}, True),
        "GRPO (reward: sum)": ({"estimator": "grpo", "estimator_options": total}, False),
        "RLOO (reward: sum)": ({"estimator": "rloo", "estimator_options": total}, False),
        f"PlanPO {DEFAULT_GROUPING} (reward: sum)": ({**ANY_TASK, "estimator": "planpo", "total_steps": steps,
                                                     "estimator_options": total}, False),
        STEP_TERM: (gigpo, False),
        NO_STEP_TERM: ({**gigpo, "estimator_options": {"omega": 0.0}}, False),
        "GiGPO, episode_stats: turns": ({**gigpo, "estimator_options": {"episode_stats": "turns"}}, False),
        VERL_AGENT: ({**gigpo, "estimator_options": {"episode_stats": "turns", "norm": "none"}}, False),
    }


STEP_TERM, NO_STEP_TERM = "GiGPO (default: the paper's)", "GiGPO, ω = 0 (no step term)"
VERL_AGENT = "GiGPO as verl-agent (turns, norm: none)"


@dataclass
class Batch:
    """Episodes, trajectory-major per turn: what a trainer hands the estimator, and what the gradient needs."""

    group: np.ndarray  # (E,)
    reward: np.ndarray
    success: np.ndarray
    turns: np.ndarray
    state: np.ndarray  # (sum T,) per turn
    action: np.ndarray
    verbosity: np.ndarray
    tokens: np.ndarray
    step_reward: np.ndarray  # (sum T,) each turn's reward besides the outcome (the ``steps`` table's task)


@dataclass(frozen=True)
class Task:
    """Probabilities of a query finding a fact and of a complete answer being right, and the answer's tokens,
    by verbosity; ``found`` and ``idle``: each turn's reward besides the outcome for a query that finds a fact and
    for a turn that changes nothing (0 and 0: outcome rewards only)."""

    query_hit: np.ndarray
    answer_hit: np.ndarray
    answer_tokens: np.ndarray
    found: float = 0.0
    idle: float = 0.0


def play(logits_action: np.ndarray, logits_verbosity: np.ndarray, need: np.ndarray, task: Task,
         rng: np.random.Generator) -> Batch:
    """Run every episode (one per entry of ``need``) to its end under the policy, all at once."""
    n = len(need)
    p_action = _softmax(logits_action)
    p_verbosity = _softmax(logits_verbosity)
    found = np.zeros(n, dtype=np.int64)
    done = np.zeros(n, dtype=bool)
    success = np.zeros(n, dtype=bool)
    turns = np.zeros(n, dtype=np.int64)
    steps: list[tuple[np.ndarray, ...]] = []
    k_index = need - 1
    for t in range(MAX_TURNS):
        live = np.flatnonzero(~done)
        if not len(live):
            break
        state = k_index[live] * 4 + found[live]
        action = _sample(p_action[state], rng)
        verbosity = _sample(p_verbosity[state, action], rng)
        scale = rng.uniform(0.75, 1.25, len(live))
        base = np.where(action == ANSWER, task.answer_tokens[verbosity], TOOL_TOKENS[verbosity])
        tokens = np.maximum(1, np.rint(base * scale)).astype(np.int64)
        roll = rng.random(len(live))
        hit = (action == QUERY) & (roll < task.query_hit[verbosity]) & (found[live] < need[live])
        found[live] += hit
        answered = action == ANSWER
        success[live] = answered & (found[live] >= need[live]) & (roll < task.answer_hit[verbosity])
        done[live] = answered | (t == MAX_TURNS - 1)
        turns[live] += 1
        reward = np.where(hit, task.found, 0.0) + np.where(action == IDLE, task.idle, 0.0)
        steps.append((live, np.full(len(live), t), state, action, verbosity, tokens, reward))
    episode, when, state, action, verbosity, tokens, reward = (np.concatenate(c) for c in zip(*steps, strict=True))
    order = np.lexsort((when, episode))  # trajectory-major, turns in order
    return Batch(np.zeros(n, dtype=np.int64), np.where(success, REWARD, 0.0), success, turns, state[order],
                 action[order], verbosity[order], tokens[order], reward[order])


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sample(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of probabilities ``p`` (inverse CDF)."""
    return np.minimum((np.cumsum(p, axis=1) < rng.random((len(p), 1))).sum(axis=1), p.shape[1] - 1)


def train(config: Mapping[str, Any], penalised: bool, task: Task, steps: int, seed: int,
          outcome_only: bool = False, early: int | None = None) -> dict[str, float]:
    """One run: ``steps`` updates from the uniform policy, then the final policy on fresh episodes. A task with
    per-turn rewards hands them to the estimator (``Rollouts.step_reward``), unless ``outcome_only``; ``early``:
    also evaluate the policy after that many updates (on episodes of their own, so training is unchanged)."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    shaper = Shaper.from_mapping(config)
    logits_action = torch.zeros(STATES, 3, dtype=torch.float64, requires_grad=True)
    logits_verbosity = torch.zeros(STATES, 3, VERBOSITY, dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.Adam([logits_action, logits_verbosity], lr=LR)
    out: dict[str, float] = {}
    for step in range(steps):
        if step == early:
            at = evaluate(logits_action, logits_verbosity, task, np.random.default_rng(seed + 1))
            out.update({f"{name} @{early}": value for name, value in at.items()})
        need = np.repeat(rng.choice(NEEDS, GROUPS), GROUP)
        b = play(logits_action.detach().numpy(), logits_verbosity.detach().numpy(), need, task, rng)
        b.group = np.repeat(np.arange(GROUPS), GROUP)
        reward = b.reward
        if penalised:
            owner = np.repeat(np.arange(len(b.turns)), b.turns)
            reward = reward - LENGTH_PENALTY * np.bincount(owner, weights=b.tokens, minlength=len(b.turns))
        stepped = (task.found or task.idle) and not outcome_only
        rollouts = Rollouts(b.group, reward, b.success, b.turns, b.tokens, b.state, b.step_reward if stepped else None)
        advantage = torch.from_numpy(shaper.estimate(rollouts, step).per_turn)
        state, action = torch.from_numpy(b.state), torch.from_numpy(b.action)
        log_p = (torch.log_softmax(logits_action, -1)[state, action]
                 + torch.log_softmax(logits_verbosity, -1)[state, action, torch.from_numpy(b.verbosity)])
        loss = -(advantage * log_p).sum() / len(log_p)  # Eq. (9): normalised by the number of turns
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return {**evaluate(logits_action, logits_verbosity, task, rng), **out}


def evaluate(logits_action: torch.Tensor, logits_verbosity: torch.Tensor, task: Task, rng: np.random.Generator
             ) -> dict[str, float]:
    """The policy on ``EVAL_EPISODES`` fresh episodes: success, turns, tokens per turn, and the return (the
    outcome plus every turn's reward)."""
    need = rng.choice(NEEDS, EVAL_EPISODES)
    b = play(logits_action.detach().numpy(), logits_verbosity.detach().numpy(), need, task, rng)
    owner = np.repeat(np.arange(len(b.turns)), b.turns)
    returns = b.reward + np.bincount(owner, weights=b.step_reward, minlength=len(b.turns))
    return {"success": float(b.success.mean()), "turns": float(b.turns.mean()),
            "tokens per turn": float(b.tokens.sum() / b.turns.sum()), "return": float(returns.mean())}


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (Student t over the seeds)."""
    x = np.asarray(values)
    if len(x) < 2:
        return float(x.mean()), float("nan")
    t = T975[len(x) - 2] if len(x) - 1 <= len(T975) else 1.96
    return float(x.mean()), float(t * x.std(ddof=1) / math.sqrt(len(x)))


METRICS = ("success", "turns", "tokens per turn")


def step_metrics(early: int) -> tuple[str, ...]:
    """The per-step table's columns: success and return after ``early`` updates, then the final policy's."""
    return (f"success @{early}", f"return @{early}", "success", "return", "turns")


def table(shape: str, results: dict[str, list[dict[str, float]]], metrics: tuple[str, ...] = METRICS,
          title: str = "final policy") -> Table:
    out = Table(title=f"{shape}: {title}, mean ± 95% interval over {len(next(iter(results.values())))} seeds")
    out.add_column("estimator")
    for metric in metrics:
        out.add_column(metric, justify="right")
    for name, runs in results.items():
        cells = []
        for metric in metrics:
            mean, half = interval([r[metric] for r in runs])
            cells.append(f"{mean:.3f} ± {half:.3f}" if metric.startswith("success") else f"{mean:.2f} ± {half:.2f}")
        out.add_row(name, *cells)
    return out


VERDICTS = {  # what the per-step table is asked, each as (estimator, against): "better" means the first
    "does GiGPO's step term help? GiGPO minus GiGPO with ω = 0": (STEP_TERM, NO_STEP_TERM),
    "episode statistics over turns (verl-agent's) minus over trajectories (the paper's)":
        ("GiGPO, episode_stats: turns", STEP_TERM),
    "verl-agent's conventions (turns, norm: none) minus the paper's": (VERL_AGENT, STEP_TERM),
}


def verdict(results: dict[str, list[dict[str, float]]], early: int, name: str, against: str) -> list[str]:
    """Whether ``name`` does better than ``against`` on the per-step task: per seed, the one minus the other (the
    same seeds, so the same first batches), mean ± the half-width of its 95% interval, and what that says."""
    lines = []
    for metric in step_metrics(early):
        sign = -1 if metric == "turns" else 1  # fewer turns is better; more success and return are
        mean, half = interval([a[metric] - b[metric] for a, b in zip(results[name], results[against],
                                                                     strict=True)])
        if not math.isfinite(half) or abs(mean) <= half:
            word = "no difference"
        else:
            word = "better" if sign * mean > 0 else "worse"
        lines.append(f"  {metric:<12} {mean:+8.3f} ± {half:.3f}   [{mean - half:+.3f}, {mean + half:+.3f}]  {word}")
    return lines


def plot(all_results: dict[str, dict[str, list[dict[str, float]]]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(all_results), len(METRICS), figsize=(15, 3.6 * len(all_results)), squeeze=False)
    for row, (shape, results) in enumerate(all_results.items()):
        names = list(results)
        for col, metric in enumerate(METRICS):
            stats = [interval([r[metric] for r in results[n]]) for n in names]
            ax = axes[row][col]
            ax.barh(range(len(names)), [m for m, _ in stats], xerr=[h for _, h in stats], color="#4c72b0",
                    error_kw={"capsize": 3})
            ax.set_yticks(range(len(names)), names if col == 0 else [""] * len(names))
            ax.invert_yaxis()
            ax.set_title(f"{shape}: {metric}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def check(shape: str, results: dict[str, list[dict[str, float]]], task: str) -> list[str]:
    """The claim the docs make: the default takes fewer turns than GRPO, and, where extra tokens buy nothing
    (``saturating``), at no loss of success."""
    failed = []
    turns, grpo_turns = (interval([r["turns"] for r in results[n]]) for n in (DEFAULT, "GRPO"))
    won, grpo_won = (interval([r["success"] for r in results[n]]) for n in (DEFAULT, "GRPO"))
    if not turns[0] < grpo_turns[0]:
        failed.append(f"{shape}: the default PlanPO takes {turns[0]:.2f} turns, GRPO {grpo_turns[0]:.2f}")
    if task == "saturating" and won[0] + won[1] < grpo_won[0] - grpo_won[1]:
        failed.append(f"{shape}: the default PlanPO succeeds less than GRPO ({won[0]:.3f} vs {grpo_won[0]:.3f})")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=8, help="seeds per estimator and shape (95%% intervals over them)")
    parser.add_argument("--steps", type=int, default=150, help="policy updates per run (the paper's ALFWorld: 150)")
    parser.add_argument("--shapes", choices=("both", *SHAPES), default="both")
    parser.add_argument("--task", choices=tuple(TASKS), default="saturating", help="what verbosity buys (see above)")
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the table's numbers (needs matplotlib)")
    parser.add_argument("--tables", choices=("both", "outcome", "steps"), default="both",
                        help="the outcome-reward tables, the per-step table, or both")
    args = parser.parse_args()
    torch.set_num_threads(1)
    shapes = list(SHAPES) if args.shapes == "both" else [args.shapes]
    if args.tables == "steps":
        shapes = []
    configs = estimators(args.steps)
    stepped = step_estimators(args.steps) if args.tables != "outcome" else {}
    early = min(EARLY, args.steps // 2)
    console = Console(width=max(Console().width, 132))  # the tables on one line each, piped or not
    started, cpu = time.perf_counter(), time.process_time()
    all_results: dict[str, dict[str, list[dict[str, float]]]] = {}
    step_results: dict[str, list[dict[str, float]]] = {}
    runs = (len(shapes) * len(configs) + len(stepped)) * args.seeds
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("training", total=runs)
        for shape in shapes:
            results = all_results.setdefault(shape, {})
            for name, config in configs.items():
                for seed in range(args.seeds):
                    task_ = Task(*TASKS[args.task], SHAPES[shape])
                    run = train(config, name == "length penalty", task_, args.steps, 1000 * seed + 7)
                    results.setdefault(name, []).append(run)
                    progress.advance(task)
        for name, (config, withheld) in stepped.items():
            for seed in range(args.seeds):
                task_ = Task(*TASKS[args.task], SHAPES["equal"], **STEP_REWARDS)
                run = train(config, False, task_, args.steps, 1000 * seed + 7, outcome_only=withheld, early=early)
                step_results.setdefault(name, []).append(run)
                progress.advance(task)
    for shape in shapes:
        console.print(table(shape, all_results[shape]))
    if stepped:
        console.print(table("per-step rewards (+1 a fact found, -1 an idle turn)", step_results,
                            step_metrics(early), f"after {early} and {args.steps} updates"))
        for question, (name, against) in VERDICTS.items():
            console.print(f"{question}, per seed:", highlight=False)
            for line in verdict(step_results, early, name, against):
                console.print(line, highlight=False)
    console.print(f"task {args.task!r}: {runs} runs of {args.steps} updates ({GROUPS} groups of {GROUP}) in "
                  f"{time.perf_counter() - started:.1f} s ({time.process_time() - cpu:.1f} s of CPU)")
    if args.plot and shapes:
        plot(all_results, args.plot)
        console.print(f"plot written to {args.plot}")
    failed = [line for shape in shapes for line in check(shape, all_results[shape], args.task)]
    for line in failed:
        print(f"FAIL: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
