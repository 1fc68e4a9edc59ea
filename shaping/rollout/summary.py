"""The end of a rollout: the submission file(s) in the upstream format, the official metrics of each (computed
by ``planshape evaluate``'s own path on the file just written, so the numbers are that command's), and a
summary of rewards, the reward-hacking monitor and the failed requests.

With ``--samples 1`` the files are ``submission.jsonl`` and ``report.json``; with K samples,
``submission-{k}.jsonl`` and ``report-{k}.json`` for k = 0..K-1, and the summary adds the mean over samples and
pass@K. ``report*.json`` is exactly what ``planshape evaluate --json`` writes.
"""

from __future__ import annotations

import json
from collections import Counter
from statistics import mean
from typing import Any

from planshape.validators.travelplanner.agent.tool_calls import parse_tool_calls
from planshape.validators.travelplanner.evaluation.metrics import METRIC_LABELS
from planshape.validators.travelplanner.evaluation.report import evaluate_all, print_report
from planshape.validators.travelplanner.evaluation.submission import read_submission
from planshape.validators.travelplanner.store.sandbox import SandboxStore
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import plugins
from .agent import ANSWERED, ERROR
from .client import SGLANG_TOOLS, VLLM_TOOLS
from .inputs import Inputs
from .run_dir import RunDir
from .settings import RolloutSettings

LEADERBOARD = "the TravelPlanner leaderboard (Hugging Face Space osunlp/TravelPlannerLeaderboard)"


def file_names(sample: int, samples: int) -> tuple[str, str]:
    suffix = "" if samples == 1 else f"-{sample}"
    return f"submission{suffix}.jsonl", f"report{suffix}.json"


def finish(run_dir: RunDir, inputs: Inputs, results: list[dict[str, Any]], settings: RolloutSettings,
           store: SandboxStore, mode: str) -> dict[str, Any]:
    """Write every final file; returns the summary (also written as ``summary.json``)."""
    samples = settings.samples
    run_dir.rewrite_results(results)
    reports = []
    for k in range(samples):
        rows = [r for r in results if r["sample"] == k]
        submission, report_name = file_names(k, samples)
        path = run_dir.write_jsonl(submission, ({"idx": r["idx"], "query": r["query"], "plan": r["plan"]}
                                                for r in rows))
        if inputs.queries is not None:
            report = evaluate_all(read_submission(path), inputs.queries, store, mode, inputs.split, progress=False,
                                  checks=plugins.checks())
            run_dir.write_json(report_name, report)
            reports.append(report)
    summary = _summary(inputs, results, samples, reports, mode)
    if settings.tool_format == "native":
        summary["unparsed_tool_calls"] = sum(r["status"] == ANSWERED and _holds_call(r["answer"]) for r in results)
    run_dir.write_json("summary.json", summary)
    return summary


def _holds_call(answer: str | None) -> bool:
    """Whether a native-mode final reply holds a ``<tool_call>`` the server left in the text (no tool parser)."""
    return any(call.error is None for call in parse_tool_calls(answer, 1))


def _summary(inputs: Inputs, results: list[dict[str, Any]], samples: int, reports: list[dict[str, Any]],
             mode: str) -> dict[str, Any]:
    scores = [r["score"] for r in results if r["score"] is not None]
    watched = [s for s in scores if s["exploit"] is not None]
    out: dict[str, Any] = {
        "queries": len(inputs.records), "samples": samples, "split": inputs.split, "scored": inputs.queries is not None,
        "status": dict(sorted(Counter(r["status"] for r in results).items())),
        "failed": [{"idx": r["idx"], "sample": r["sample"], "error": r["error"]} for r in results
                   if r["status"] == ERROR],
        "turns_mean": mean(r["turns"] for r in results), "tool_calls_mean": mean(r["tool_calls"] for r in results),
        "completion_tokens": sum(r["completion_tokens"] for r in results),
    }
    if scores:
        out["reward"] = {"mean": mean(s["reward"] for s in scores), "success_rate": mean(s["success"] for s in scores),
                         "failures": dict(sorted(Counter(s["failure"] or "passed" for s in scores).items()))}
    if watched:
        out["monitor"] = {"exploit_rate": mean(s["exploit"] for s in watched),
                          "official_pass_rate": mean(s["official_pass"] for s in watched)}
    if reports:
        out["metrics_mode"] = mode
        out["metrics"] = {key: [rep["metrics"]["rates"][key] for rep in reports] for key in METRIC_LABELS}
        out["metrics_mean"] = {key: mean(v) for key, v in out["metrics"].items()}
        passed = [[p["final_pass"] for p in rep["plans"]] for rep in reports]
        out[f"pass@{samples}"] = mean(any(col) for col in zip(*passed, strict=True))
    return out


def print_summary(summary: dict[str, Any], run_dir: RunDir, console: Console, reward_mode: str) -> None:
    """The metrics tables (``planshape evaluate``'s for one sample), the monitor's rate, failures and files."""
    samples = summary["samples"]
    if summary["scored"] and samples == 1:
        print_report(json.loads((run_dir.path / file_names(0, 1)[1]).read_text(encoding="utf-8")), console)
    elif summary["scored"]:
        table = Table(title=f"TravelPlanner metrics over {samples} samples — mode: {summary['metrics_mode']}",
                      title_justify="left")
        for column in ("metric", *(f"sample {k}" for k in range(samples)), "mean"):
            table.add_column(column, justify="left" if column == "metric" else "right")
        for key, label in METRIC_LABELS.items():
            table.add_row(label, *(f"{100 * v:.1f}%" for v in summary["metrics"][key]),
                          f"{100 * summary['metrics_mean'][key]:.1f}%")
        console.print(table)
        console.print(f"final pass@{samples}: {100 * summary[f'pass@{samples}']:.1f}%")
    else:
        console.print(f"split {summary['split']}: these queries carry no constraints to check (the test split "
                      f"withholds them), so nothing is scored here; submit {file_names(0, samples)[0]} to "
                      f"{LEADERBOARD}.")
    if "reward" in summary:
        reward = summary["reward"]
        console.print(f"reward ({reward_mode} mode): mean {reward['mean']:.3f}, success "
                      f"{100 * reward['success_rate']:.1f}%")
    if "monitor" in summary:
        console.print(f"reward-hacking monitor: {100 * summary['monitor']['exploit_rate']:.1f}% of plans pass the "
                      "official evaluator but fail strict")
    status = ", ".join(f"{n} {name}" for name, n in summary["status"].items())
    console.print(f"trajectories: {status}; {summary['turns_mean']:.1f} turns and "
                  f"{summary['tool_calls_mean']:.1f} tool calls on average")
    failed = summary["failed"]
    for one in failed[:5]:
        console.print(f"[red]failed[/red] query {one['idx']} sample {one['sample']}: {escape(str(one['error']))}")
    if failed:
        more = f"... and {len(failed) - 5} more; " if len(failed) > 5 else ""
        some = "1 trajectory" if len(failed) == 1 else f"{len(failed)} trajectories"
        console.print(f"{more}{some} failed (status 'error' in results.jsonl): once the endpoint is fixed, rerun the "
                      "same command with --retry-failed to run only those")
    if summary.get("unparsed_tool_calls"):
        console.print(f"[yellow]warning[/yellow]: {summary['unparsed_tool_calls']} final replies hold a <tool_call> "
                      "block that the server did not turn into tool_calls, so it was scored as the answer: start "
                      f"vLLM with {VLLM_TOOLS} (SGLang: {SGLANG_TOOLS}), or pass --tool-format text")
    names = [n for k in range(samples) for n in file_names(k, samples)[: 2 if summary["scored"] else 1]]
    console.print(f"files in {run_dir.path}: results.jsonl, summary.json, {', '.join(names)}", markup=False)
