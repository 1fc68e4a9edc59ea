"""What each estimator teaches: a small policy trained on a synthetic multi-turn task with planshape's own
estimators, several seeds, success, turns and tokens per turn with 95% intervals.

    python benchmarks/learning_loop.py [--seeds 8] [--steps 150] [--plot learning_loop.png] [--shapes both]
                                       [--task saturating|rising]

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


@dataclass(frozen=True)
class Task:
    """Probabilities of a query finding a fact and of a complete answer being right, and the answer's tokens,
    by verbosity."""

    query_hit: np.ndarray
    answer_hit: np.ndarray
    answer_tokens: np.ndarray


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
        steps.append((live, np.full(len(live), t), state, action, verbosity, tokens))
    episode, when, state, action, verbosity, tokens = (np.concatenate(c) for c in zip(*steps, strict=True))
    order = np.lexsort((when, episode))  # trajectory-major, turns in order
    return Batch(np.zeros(n, dtype=np.int64), np.where(success, REWARD, 0.0), success, turns, state[order],
                 action[order], verbosity[order], tokens[order])


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sample(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of probabilities ``p`` (inverse CDF)."""
    return np.minimum((np.cumsum(p, axis=1) < rng.random((len(p), 1))).sum(axis=1), p.shape[1] - 1)


def train(config: Mapping[str, Any], penalised: bool, task: Task, steps: int, seed: int) -> dict[str, float]:
    """One run: ``steps`` updates from the uniform policy, then the final policy on fresh episodes."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    shaper = Shaper.from_mapping(config)
    logits_action = torch.zeros(STATES, 3, dtype=torch.float64, requires_grad=True)
    logits_verbosity = torch.zeros(STATES, 3, VERBOSITY, dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.Adam([logits_action, logits_verbosity], lr=LR)
    for step in range(steps):
        need = np.repeat(rng.choice(NEEDS, GROUPS), GROUP)
        b = play(logits_action.detach().numpy(), logits_verbosity.detach().numpy(), need, task, rng)
        b.group = np.repeat(np.arange(GROUPS), GROUP)
        reward = b.reward
        if penalised:
            owner = np.repeat(np.arange(len(b.turns)), b.turns)
            reward = reward - LENGTH_PENALTY * np.bincount(owner, weights=b.tokens, minlength=len(b.turns))
        rollouts = Rollouts(b.group, reward, b.success, b.turns, b.tokens, b.state)
        advantage = torch.from_numpy(shaper.estimate(rollouts, step).per_turn)
        state, action = torch.from_numpy(b.state), torch.from_numpy(b.action)
        log_p = (torch.log_softmax(logits_action, -1)[state, action]
                 + torch.log_softmax(logits_verbosity, -1)[state, action, torch.from_numpy(b.verbosity)])
        loss = -(advantage * log_p).sum() / len(log_p)  # Eq. (9): normalised by the number of turns
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    need = rng.choice(NEEDS, EVAL_EPISODES)
    b = play(logits_action.detach().numpy(), logits_verbosity.detach().numpy(), need, task, rng)
    return {"success": float(b.success.mean()), "turns": float(b.turns.mean()),
            "tokens per turn": float(b.tokens.sum() / b.turns.sum())}


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (Student t over the seeds)."""
    x = np.asarray(values)
    if len(x) < 2:
        return float(x.mean()), float("nan")
    t = T975[len(x) - 2] if len(x) - 1 <= len(T975) else 1.96
    return float(x.mean()), float(t * x.std(ddof=1) / math.sqrt(len(x)))


METRICS = ("success", "turns", "tokens per turn")


def table(shape: str, results: dict[str, list[dict[str, float]]]) -> Table:
    out = Table(title=f"{shape}: final policy, mean ± 95% interval over {len(next(iter(results.values())))} seeds")
    out.add_column("estimator")
    for metric in METRICS:
        out.add_column(metric, justify="right")
    for name, runs in results.items():
        cells = []
        for metric in METRICS:
            mean, half = interval([r[metric] for r in runs])
            cells.append(f"{mean:.3f} ± {half:.3f}" if metric == "success" else f"{mean:.2f} ± {half:.2f}")
        out.add_row(name, *cells)
    return out


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
    args = parser.parse_args()
    torch.set_num_threads(1)
    shapes = list(SHAPES) if args.shapes == "both" else [args.shapes]
    configs = estimators(args.steps)
    console = Console()
    started, cpu = time.perf_counter(), time.process_time()
    all_results: dict[str, dict[str, list[dict[str, float]]]] = {}
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("training", total=len(shapes) * len(configs) * args.seeds)
        for shape in shapes:
            results = all_results.setdefault(shape, {})
            for name, config in configs.items():
                for seed in range(args.seeds):
                    task_ = Task(*TASKS[args.task], SHAPES[shape])
                    run = train(config, name == "length penalty", task_, args.steps, 1000 * seed + 7)
                    results.setdefault(name, []).append(run)
                    progress.advance(task)
    for shape in shapes:
        console.print(table(shape, all_results[shape]))
    console.print(f"task {args.task!r}: {len(shapes) * len(configs) * args.seeds} runs of {args.steps} updates "
                  f"({GROUPS} groups of {GROUP}) in {time.perf_counter() - started:.1f} s "
                  f"({time.process_time() - cpu:.1f} s of CPU)")
    if args.plot:
        plot(all_results, args.plot)
        console.print(f"plot written to {args.plot}")
    failed = [line for shape in shapes for line in check(shape, all_results[shape], args.task)]
    for line in failed:
        print(f"FAIL: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
