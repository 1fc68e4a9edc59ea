"""Per-step series of a verdict log (``planshape report``): read once, streaming, into small counters.

Rates per step, over the samples scored at that step:
* each check's failure rate among samples that ran it (commonsense: a checked plan; hard: hard checks ran),
  and how often the hard checks did not run; ``commonsense`` / ``hard`` failure = 1 - cs_macro / 1 - hard_macro
  (there, as in the official metrics, hard checks that did not run count as failed);
* reward and every component (means), official pass, strict pass, exploit rate and exploits per rule;
* PlanPO statistics from the advantage records: A^E mean and spread, A^S spread, turns, turn lengths;
* final pass by level × trip length over the last steps.

``metrics()`` gives the per-step values under the names the trainers log (``planshape/reward``,
``planshape/failure/<category>``, ``planshape/adv_e_std``, ...), computed as the facade computes them, so a
dashboard built on a trainer's log reads the report's ``metrics.csv`` and the other way round.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...schedules import LinearDecay
from ..metric_names import AdvantageStats, core_metrics, failure_names, metric_name
from ..monitor import EXPLOIT, OFFICIAL_PASS, STRICT_PASS, exploit_key
from ..verdict_log import CHECK_KEYS, iter_lines, log_files, parse_line

N_COMMONSENSE = 8  # the first 8 of CHECK_KEYS are commonsense, the last 5 hard
NOT_CHECKED = "-" * len(CHECK_KEYS)
LEVELS = ("easy", "medium", "hard")


@dataclass
class _Moments:
    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    low: float = float("inf")
    high: float = float("-inf")

    def add(self, values: Iterable[float | None]) -> None:
        for v in values:
            if v is None:
                continue
            self.n += 1
            self.total += v
            self.squares += v * v
            self.low, self.high = min(self.low, v), max(self.high, v)

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else float("nan")

    @property
    def std(self) -> float:
        if not self.n:
            return float("nan")
        return float(np.sqrt(max(0.0, self.squares / self.n - self.mean ** 2)))


@dataclass
class _Step:
    samples: int = 0
    codes: Counter = field(default_factory=Counter)  # verdict code -> samples (codes repeat: one count each)
    reward: float = 0.0
    components: Counter = field(default_factory=Counter)
    official: int = 0
    strict: int = 0
    strict_seen: int = 0  # samples whose record holds the monitor's strict pass (older logs do not)
    monitored: int = 0
    succeeded: int = 0
    success_seen: int = 0
    exploit: int = 0
    rules: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)
    stage: str = ""
    cells: Counter = field(default_factory=Counter)  # (level, days) -> samples
    cell_pass: Counter = field(default_factory=Counter)
    trajectories: int = 0
    adv_success: int = 0
    group_success: Counter = field(default_factory=Counter)  # group -> successful trajectories
    a_e: _Moments = field(default_factory=_Moments)
    a_s: _Moments = field(default_factory=_Moments)
    turns: _Moments = field(default_factory=_Moments)
    lengths: _Moments = field(default_factory=_Moments)


class LogSummary:
    """Everything the report draws, accumulated record by record."""

    def __init__(self) -> None:
        self.steps: dict[int, _Step] = defaultdict(_Step)
        self.headers: list[dict[str, Any]] = []
        self.skipped = 0

    def add(self, row: dict[str, Any]) -> None:
        kind = row.get("kind")
        if kind == "header":
            self.headers.append(row)
            return
        try:
            step = self.steps[int(row["step"])]
            if kind in ("score", "sample"):
                self._score(step, row)
            if kind in ("advantage", "sample"):
                self._advantage(step, row)
        except (KeyError, TypeError, ValueError):
            self.skipped += 1

    def _score(self, s: _Step, row: dict[str, Any]) -> None:
        s.samples += 1
        s.reward += row.get("reward") or 0.0
        for name, value in (row.get("components") or {}).items():
            s.components[name] += value or 0.0  # type: ignore[assignment]  # a Counter of float sums
        s.codes[row.get("verdicts") or NOT_CHECKED] += 1
        if row.get("success") is not None:
            s.success_seen += 1
            s.succeeded += bool(row["success"])
        if row.get("strict_pass") is not None:
            s.strict_seen += 1
            s.strict += bool(row["strict_pass"])
        if row.get("official_pass") is not None:
            s.monitored += 1
            s.official += bool(row["official_pass"])
            if row.get("exploit"):
                s.exploit += 1
                s.rules.update(row.get("rules") or ["unattributed"])
        s.failures[row.get("failure") or "pass"] += 1
        s.stage = row.get("stage") or s.stage
        if row.get("level") is not None and row.get("days") is not None:
            cell = (str(row["level"]), int(row["days"]))
            s.cells[cell] += 1
            s.cell_pass[cell] += (row.get("components") or {}).get("pass", 0.0) == 1.0

    def _advantage(self, s: _Step, row: dict[str, Any]) -> None:
        if not row.get("turns"):  # no assistant token: a trainer's padding row or an empty response, no sample
            return  # (as the trainers' logged statistics skip it: ``facade.estimator.real_trajectories``)
        s.trajectories += 1
        s.adv_success += bool(row.get("success"))
        s.group_success[str(row.get("group"))] += bool(row.get("success"))
        s.a_e.add([row.get("a_e")])
        s.a_s.add(row.get("a_s") or [])
        s.turns.add([row.get("turns")])
        s.lengths.add(row.get("turn_lengths") or [])

    # --- series ---------------------------------------------------------------------------------------------

    def step_numbers(self, kind: str = "score") -> np.ndarray:
        if kind == "score":
            return np.array(sorted(k for k, s in self.steps.items() if s.samples), dtype=np.int64)
        return np.array(sorted(k for k, s in self.steps.items() if s.trajectories), dtype=np.int64)

    def _series(self, fn: Callable[[_Step], float], kind: str = "score") -> np.ndarray:
        return np.array([fn(self.steps[k]) for k in self.step_numbers(kind)], dtype=np.float64)

    def check_failure(self) -> dict[str, np.ndarray]:
        """Each check's failure rate per step: a commonsense check among samples with a checked plan, a hard
        check among those whose hard checks ran; ``hard_not_run``: the share of checked plans whose hard
        checks did not run (Complete Information or Within Sandbox failed)."""
        width = len(CHECK_KEYS)
        rows = []
        for k in self.step_numbers():
            checked = hard_ran = 0
            failed = np.zeros(width)
            for code, count in self.steps[k].codes.items():  # distinct codes only: few per step
                code = code.ljust(width, "-")[:width]
                if code[:N_COMMONSENSE] == NOT_CHECKED[:N_COMMONSENSE]:
                    continue
                checked += count
                hard_ran += count * (code[N_COMMONSENSE:] != NOT_CHECKED[N_COMMONSENSE:])
                failed += count * np.array([c == "f" for c in code])
            with np.errstate(invalid="ignore", divide="ignore"):
                rows.append((*(failed[:N_COMMONSENSE] / checked), *(failed[N_COMMONSENSE:] / hard_ran),
                             1 - hard_ran / checked if checked else float("nan")))
        table = np.array(rows, dtype=np.float64).reshape(len(rows), width + 1)
        out = {key: table[:, i] for i, key in enumerate(CHECK_KEYS)}
        out["hard_not_run"] = table[:, -1]
        return out

    def group_failure(self) -> dict[str, np.ndarray]:
        """Commonsense and hard failure per step (1 - macro pass, over every sample)."""
        return {"commonsense": self._series(lambda s: 1 - s.components["cs_macro"] / s.samples),
                "hard": self._series(lambda s: 1 - s.components["hard_macro"] / s.samples)}

    def reward(self) -> dict[str, np.ndarray]:
        names = sorted({n for s in self.steps.values() for n in s.components})
        out = {"reward": self._series(lambda s: s.reward / s.samples)}
        out.update({n: self._series(_share("components", n)) for n in names})
        return out

    def monitor(self) -> dict[str, np.ndarray]:
        """Exploit, official-pass and strict-pass rates per step (NaN where the monitor was off)."""
        def rate(count: Callable[[_Step], int]) -> Callable[[_Step], float]:
            return lambda s: count(s) / s.monitored if s.monitored else float("nan")

        out = {EXPLOIT: self._series(rate(lambda s: s.exploit)),
               OFFICIAL_PASS: self._series(rate(lambda s: s.official)),
               STRICT_PASS: self._series(lambda s: s.strict / s.strict_seen if s.strict_seen
                                         else s.components["pass"] / s.samples)}
        for rule in sorted({r for s in self.steps.values() for r in s.rules}):
            out[exploit_key(rule)] = self._series(rate(_count("rules", rule)))
        return out

    def failures(self) -> dict[str, np.ndarray]:
        """The share of each failure category per step."""
        names = sorted({n for s in self.steps.values() for n in s.failures})
        return {n: self._series(_share("failures", n)) for n in names}

    def planpo(self) -> dict[str, np.ndarray]:
        """Per advantage step, under the trainers' names (``adv_e_mean``, ``turns_max``, ...) and the same names
        with ``_min`` / ``_max`` for the spread: A^E, A^S, turns per trajectory, tokens per turn."""
        def get(part: str, stat: str) -> np.ndarray:
            return self._series(lambda s: float(getattr(getattr(s, part), stat)), "advantage")

        parts = {"adv_e": "a_e", "adv_s": "a_s", "turns": "turns", "turn_tokens": "lengths"}
        stats = {"mean": "mean", "std": "std", "min": "low", "max": "high"}
        return {f"{name}_{stat}": get(part, field) for name, part in parts.items() for stat, field in stats.items()}

    def metrics(self) -> dict[str, dict[int, float]]:
        """Per step, every trainer metric the log can tell, under the trainers' names (``metric_names``): the
        reward, success and components, each failure category seen, the monitor's rates, and the advantage
        statistics (α from the header's decay)."""
        out: dict[str, dict[int, float]] = defaultdict(dict)
        failures = sorted({n for s in self.steps.values() for n in s.failures})  # seen anywhere: 0 elsewhere
        rules = sorted({r for s in self.steps.values() for r in s.rules})
        for k, s in sorted(self.steps.items()):
            values: dict[str, float | None] = {}
            if s.samples:
                values.update(core_metrics(s.reward / s.samples, s.succeeded / s.success_seen if s.success_seen
                                           else None))
                values.update({metric_name(name): total / s.samples for name, total in s.components.items()})
                values.update({name: s.failures[c] / s.samples
                               for c, name in zip(failures, failure_names(tuple(failures)), strict=True)})
                if s.monitored:
                    values[metric_name(OFFICIAL_PASS)] = s.official / s.monitored
                    values[metric_name(EXPLOIT)] = s.exploit / s.monitored
                    values.update({metric_name(exploit_key(rule)): s.rules[rule] / s.monitored for rule in rules})
                if s.strict_seen:
                    values[metric_name(STRICT_PASS)] = s.strict / s.strict_seen
            if s.trajectories:
                groups = s.group_success.values()
                values.update(AdvantageStats(
                    alpha=self._alpha(k), adv_e_mean=s.a_e.mean, adv_e_std=s.a_e.std,
                    adv_s_mean=s.a_s.mean if s.a_s.n else 0.0, adv_s_std=s.a_s.std if s.a_s.n else 0.0,
                    turns_mean=s.turns.mean, turns_max=s.turns.high,
                    turn_tokens_mean=s.lengths.mean if s.lengths.n else 0.0,
                    success_rate=s.adv_success / s.trajectories,
                    groups_multi_success=sum(c >= 2 for c in groups) / len(groups)).metrics())
            for name, value in values.items():
                if value is not None:  # not known at this step (a log without success flags)
                    out[name][k] = value
        return dict(out)

    def _alpha(self, step: int) -> float | None:
        """α(step) from the run's decay in the log header; 0 for an estimator without α; None if unknown."""
        for header in self.headers:
            described = header.get("describe") or {}
            if "alpha" in described:
                alpha = described["alpha"]
                try:
                    return 0.0 if alpha is None else LinearDecay(alpha["init"], alpha["final"], alpha["steps"])(step)
                except (KeyError, TypeError, ValueError):  # a header this version cannot read: no α column
                    return None
        return None

    def stage_boundaries(self) -> list[tuple[int, str]]:
        """(first step, stage name) of each stage seen, from the log header's schedule or the records."""
        for header in self.headers:
            stages = (header.get("describe") or {}).get("stages")
            if stages:
                return [(int(s["from_step"]), str(s["name"])) for s in stages]
        out: list[tuple[int, str]] = []
        for k in self.step_numbers():
            stage = self.steps[k].stage
            if stage and (not out or out[-1][1] != stage):
                out.append((int(k), stage))
        return out

    def final_window(self) -> list[int]:
        """The last tenth of the scored steps (at least one): where "final pass" is read."""
        steps = self.step_numbers()
        return [int(k) for k in steps[-max(1, len(steps) // 10):]] if len(steps) else []

    def final_pass(self) -> tuple[list[str], list[int], np.ndarray, np.ndarray]:
        """(levels, trip lengths, pass rate, samples) over the final window; NaN where a cell has no sample."""
        cells: Counter = Counter()
        passed: Counter = Counter()
        for k in self.final_window():
            cells.update(self.steps[k].cells)
            passed.update(self.steps[k].cell_pass)
        levels = [lv for lv in LEVELS if any(c[0] == lv for c in cells)]
        levels += sorted({c[0] for c in cells} - set(levels))
        days = sorted({c[1] for c in cells})
        counts = np.array([[cells[(lv, d)] for d in days] for lv in levels], dtype=np.float64).reshape(
            len(levels), len(days))
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = np.array([[passed[(lv, d)] for d in days] for lv in levels], dtype=np.float64).reshape(
                len(levels), len(days)) / counts
        return levels, days, rates, counts


def summarise(directory: str | Path, progress: bool = True) -> LogSummary:
    """Read every log file of ``directory`` (a progress bar over its bytes when ``progress``)."""
    files = log_files(directory)
    if not files:
        raise ValueError(f"{directory}: no verdict log files (verdicts-*.jsonl); set log_dir in the planshape config")
    summary = LogSummary()
    total = sum(f.stat().st_size for f in files)
    if progress:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task(f"reading {len(files)} log file(s)", total=total)
            for path in files:
                done = 0
                for line in iter_lines(path):
                    _add(summary, line)
                    done += len(line)
                    if done >= 1 << 20:  # advance by the megabyte: a per-line update would cost more than parsing
                        bar.advance(task, done)
                        done = 0
                bar.advance(task, done)
    else:
        for path in files:
            for line in iter_lines(path):
                _add(summary, line)
    return summary


def _add(summary: LogSummary, line: bytes) -> None:
    row = parse_line(line)
    if row is None:
        summary.skipped += 1
    else:
        summary.add(row)


def _count(counter: str, name: str) -> Callable[[_Step], int]:
    """A step's count of ``name`` in its ``counter`` (``rules``, ``failures``, ``components``)."""
    return lambda s: getattr(s, counter)[name]


def _share(counter: str, name: str) -> Callable[[_Step], float]:
    """That count per sample of the step."""
    return lambda s: getattr(s, counter)[name] / s.samples
