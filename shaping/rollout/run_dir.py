"""A rollout's run directory: loss-free while running, the same files however often it was interrupted.

* ``run.json``: what decides the results (settings fingerprint, planshape config, prompt version, queries
  file digest); a rerun into the directory must match it.
* ``results.jsonl``: one line per finished trajectory, appended (and flushed) as each one finishes. A process
  killed mid-write leaves at most one torn last line, which the next run cuts off and redoes.
* Text is written ASCII-escaped, so a lone surrogate a model wrote cannot stop a write.
* At the end, ``results.jsonl`` is rewritten in (query, sample) order with one line per trajectory, and the
  submission and report files are written whole (each through a temporary file and a rename).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

RUN, RESULTS = "run.json", "results.jsonl"
Key = tuple[int, int]  # (query index, sample index)


class RunDirError(ValueError):
    """The directory holds another run, or a results file planshape did not write."""


def file_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    def check(self, run: dict[str, Any]) -> bool:
        """Whether the directory holds this run already (resuming it); another run's is refused, naming what
        differs. Writes nothing."""
        file = self.path / RUN
        if not file.exists():
            return False
        try:
            previous = json.loads(file.read_text(encoding="utf-8"))
        except ValueError:
            raise RunDirError(f"{file} is not a run file; give a new -o directory") from None
        changed = differences(previous, json.loads(json.dumps(run)))  # compared as written (tuples as lists)
        if changed:
            shown = "; ".join(changed[:3]) + (f"; and {len(changed) - 3} more" if len(changed) > 3 else "")
            raise RunDirError(f"{self.path} holds a run with other settings ({shown}); rerun with the same settings "
                              "to resume it, or give a new -o directory")
        return True

    def prepare(self, run: dict[str, Any]) -> None:
        """Create the directory with ``run.json``, or check that it holds the same run (resuming it)."""
        if not self.check(run):
            self.path.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path / RUN, json.dumps(run, indent=2, sort_keys=True) + "\n")

    def finished(self) -> dict[Key, dict[str, Any]]:
        """The trajectories recorded so far (the last record of a key wins); a torn last line is cut off."""
        file = self.path / RESULTS
        if not file.exists():
            return {}
        data = file.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # the process was killed while writing this line: drop it, the trajectory reruns
            with open(file, "r+b") as handle:
                handle.truncate(end)
            data = data[:end]
        out: dict[Key, dict[str, Any]] = {}
        for number, line in enumerate(data.splitlines(), start=1):
            try:
                record = json.loads(line)
                out[(int(record["idx"]), int(record["sample"]))] = record
            except (ValueError, KeyError, TypeError):
                raise RunDirError(f"{file}: line {number} is not a planshape result; give a new -o "
                                  "directory") from None
        return out

    def append(self, record: dict[str, Any]) -> None:
        with open(self.path / RESULTS, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def rewrite_results(self, records: Iterable[dict[str, Any]]) -> None:
        write_atomic(self.path / RESULTS, "".join(json.dumps(r) + "\n" for r in records))

    def write_jsonl(self, name: str, rows: Iterable[Any]) -> Path:
        target = self.path / name
        write_atomic(target, "".join(json.dumps(r) + "\n" for r in rows))
        return target

    def write_json(self, name: str, value: Any) -> Path:
        target = self.path / name
        write_atomic(target, json.dumps(value, indent=2) + "\n")
        return target


def differences(before: Any, now: Any, path: str = "") -> list[str]:
    """Each setting that differs, by its dotted path in ``run.json``, with both values."""
    if isinstance(before, dict) and isinstance(now, dict):
        return [line for key in sorted(set(before) | set(now), key=str)
                for line in differences(before.get(key, _UNSET), now.get(key, _UNSET), f"{path}.{key}" if path
                                        else str(key))]
    if before == now:
        return []
    return [f"{path}: {_shown(before)} in the run, {_shown(now)} now"]


_UNSET = object()


def _shown(value: Any) -> str:
    text = "unset" if value is _UNSET else json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def write_atomic(target: Path, text: str) -> None:
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, target)
