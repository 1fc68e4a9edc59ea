"""The verdict log: one compact JSON line per scored sample, appended to a log directory.

Why JSON Lines and not Parquet: a line is appended and flushed per step by each process, survives a kill
up to its last complete line, needs no extra dependency (pyarrow is heavy and not a core dependency), and
``planshape report`` reads a few million of them in seconds; Parquet's row groups would need a file per step.

* One file per process (``verdicts-<host>-<pid>-<random>.jsonl``): many processes never share a file, so no
  locking, and a writer after a ``fork`` opens a file of its own.
* Buffered: ``add`` keeps the record; ``flush(step)`` hands the step's records to a writer thread, which
  encodes them and appends them with one ``os.write``, so a training step pays only for the hand-over.
* After a crash every step whose flush completed is on disk (``flushed_step``; ``durable=True`` also fsyncs,
  for a machine crash); a kill during a write leaves at most one partial last line, which readers skip.

Records: a header line ``{"kind": "header", ...}`` per file, then one ``"kind": "sample"`` record per sample
holding ``SCORE_FIELDS`` and ``ADVANTAGE_FIELDS`` where one process scores and estimates (``sample_log``),
else ``"kind": "score"`` records (where the reward is computed) and ``"kind": "advantage"`` records (where
advantages are computed: in VERL and OpenRLHF another process than the reward's).
"""

from __future__ import annotations

import atexit
import json
import math
import os
import queue
import secrets
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from planshape.validators.travelplanner.checks.registry import COMMONSENSE, HARD
from planshape.validators.travelplanner.checks.verdicts import PlanResult, Status

FORMAT = 1
CHECK_KEYS = tuple(c.key for c in (*COMMONSENSE, *HARD))  # the 13 official checks, in the verdict-code order
VERDICT_CODE = {Status.PASS: "p", Status.FAIL: "f", Status.NA: "n"}
NOT_RUN = "-"  # no verdict: no plan, or hard checks not run
SCORE_FIELDS = ("kind", "step", "sample", "group", "trajectory", "reward", "success", "components", "failure",
                "verdicts", "official_pass", "strict_pass", "exploit", "rules", "stage", "level", "days")
ADVANTAGE_FIELDS = ("kind", "step", "group", "trajectory", "success", "reward", "turns", "turn_lengths",
                    "a_e", "a_s")
KINDS = ("header", "score", "advantage", "sample")  # sample: a score and its advantages in one record
_STOP = object()
_ENCODER = json.JSONEncoder(separators=(",", ":"), default=str, check_circular=False)  # one, not one per record


def verdict_code(result: PlanResult | None) -> str:
    """The 13 official verdicts as 13 characters (p pass, f fail, n n/a, - not run), in ``CHECK_KEYS`` order."""
    if result is None:
        return NOT_RUN * len(CHECK_KEYS)
    verdicts = {**result.commonsense, **(result.hard or {})}
    return "".join(VERDICT_CODE[verdicts[k].status] if k in verdicts else NOT_RUN for k in CHECK_KEYS)


def _num(value: float) -> float | None:
    """JSON-safe, compact number (NaN/inf are written as null)."""
    value = float(value)
    return round(value, 6) if math.isfinite(value) else None


def _nums(values: Any) -> list[float | None]:
    """``_num`` of a whole array at once (the writer thread's hot path)."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    out = np.round(array, 6).tolist()
    if not np.isfinite(array).all():
        out = [v if math.isfinite(v) else None for v in out]
    return out


def score_record(step: int, sample: int, reward: float, components: Mapping[str, float], failure: str,
                 verdicts: str, *, official_pass: bool | None = None, exploit: bool | None = None,
                 rules: Sequence[str] = (), stage: str = "", group: Any = None, trajectory: int | None = None,
                 level: str | None = None, days: int | None = None, success: bool | None = None,
                 strict_pass: bool | None = None) -> dict[str, Any]:
    """One scored sample (``sample``: its position in the step; ``verdicts``: a ``verdict_code``)."""
    return {"kind": "score", "step": int(step), "sample": int(sample), "group": group, "trajectory": trajectory,
            "reward": _num(reward), "success": success,
            "components": {k: round(float(v), 6) for k, v in components.items()},
            "failure": failure, "verdicts": verdicts, "official_pass": official_pass, "strict_pass": strict_pass,
            "exploit": exploit, "rules": list(rules), "stage": stage, "level": level, "days": days}


def advantage_records(step: int, group: Sequence[Any], reward: Sequence[float] | np.ndarray,
                      success: Sequence[bool] | np.ndarray, turns: Sequence[int] | np.ndarray,
                      turn_lengths: Sequence[int] | np.ndarray, a_e: Sequence[float] | np.ndarray,
                      a_s: Sequence[float] | np.ndarray) -> list[dict[str, Any]]:
    """One record per trajectory of an advantage batch: ``turns`` (B,) per row; ``turn_lengths`` and ``a_s``
    (A^S) flat over every turn, row after row, as the estimators give them; ``a_e`` (B,) A^E."""
    counts = np.asarray(turns, dtype=np.int64).reshape(-1).tolist()
    lengths = np.asarray(turn_lengths, dtype=np.int64).reshape(-1).tolist()
    a_s_list, a_e_list, rewards = _nums(a_s), _nums(a_e), _nums(reward)
    flags = np.asarray(success, dtype=bool).reshape(-1).tolist()
    out = []
    seen: dict[str, int] = {}
    start = 0
    for i, count in enumerate(counts):
        key = str(group[i])
        seen[key] = seen.get(key, -1) + 1
        end = start + count
        out.append({"kind": "advantage", "step": int(step), "group": key, "trajectory": seen[key],
                    "success": flags[i], "reward": rewards[i], "turns": count, "turn_lengths": lengths[start:end],
                    "a_e": a_e_list[i], "a_s": a_s_list[start:end]})
        start = end
    return out


class VerdictLog:
    """Appends records to ``directory`` from this process; see the module docstring for the guarantees."""

    def __init__(self, directory: str | Path, meta: Mapping[str, Any] | None = None, durable: bool = False):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.meta = dict(meta or {})
        self.durable = durable
        self.flushed_step: int | None = None
        self._pid = -1
        self._open()

    def _open(self) -> None:
        self._pid = os.getpid()
        self.path = self.directory / f"verdicts-{socket.gethostname()}-{self._pid}-{secrets.token_hex(3)}.jsonl"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._buffer: list[dict[str, Any]] = []
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._done = threading.Condition()
        self._pending = 0
        self._error: BaseException | None = None
        header = {"kind": "header", "format": FORMAT, "checks": list(CHECK_KEYS), "pid": self._pid,
                  "host": socket.gethostname(), **self.meta}
        self._write([header])
        self._thread = threading.Thread(target=self._writer, name="planshape-verdict-log", daemon=True)
        self._thread.start()
        atexit.register(self.close)

    def _check_process(self) -> None:
        if os.getpid() != self._pid:  # forked: the parent's thread and buffer are not ours
            self._open()

    def add(self, record: Mapping[str, Any]) -> None:
        self._check_process()
        self._buffer.append(record)  # type: ignore[arg-type]

    def extend(self, records: Iterable[Mapping[str, Any]]) -> None:
        self._check_process()
        self._buffer.extend(records)  # type: ignore[arg-type]

    def write_now(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Write records in this thread, before returning: for a process that may be killed any moment after (a
        reward server's scoring process, stopped with SIGKILL past a sample's budget), where a record handed to the
        writer thread could die with it."""
        self._check_process()
        self._write(list(records))

    def add_later(self, build: Callable[[], Iterable[Mapping[str, Any]]]) -> None:
        """Buffer a function that builds records: it runs on the writer thread, off the training step."""
        self._check_process()
        self._buffer.append(build)  # type: ignore[arg-type]

    def flush(self, step: int | None = None) -> None:
        """Hand the buffered records to the writer (call once per step); returns at once."""
        self._check_process()
        if self._error is not None:
            raise OSError(f"verdict log {self.path}: the writer failed: {self._error}") from self._error
        batch, self._buffer = self._buffer, []
        with self._done:
            self._pending += 1
        self._queue.put((step, batch))

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every flushed record is written; False on timeout."""
        with self._done:
            return self._done.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        if os.getpid() != self._pid or not self._thread.is_alive():
            return
        self.flush()
        self._queue.put(_STOP)
        self._thread.join()
        os.close(self._fd)

    def _writer(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            step, batch = item
            try:
                if batch:
                    self._write(batch)
            except BaseException as exc:  # noqa: BLE001 - reported on the next flush, in the training loop
                self._error = exc
            with self._done:
                if step is not None and self._error is None:
                    self.flushed_step = step
                self._pending -= 1
                self._done.notify_all()

    def _write(self, items: list) -> None:
        records = [r for item in items for r in (item() if callable(item) else (item,))]
        encode = _ENCODER.encode
        data = "".join(encode(r) + "\n" for r in records).encode()
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        if self.durable:
            os.fsync(self._fd)

    def __enter__(self) -> VerdictLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def log_files(directory: str | Path) -> list[Path]:
    return sorted(Path(directory).glob("verdicts-*.jsonl"))


def read_log(directory: str | Path) -> tuple[list[dict], list[dict], int]:
    """(headers, records, skipped lines) of every file in ``directory``; a torn or foreign line is skipped."""
    headers: list[dict] = []
    records: list[dict] = []
    skipped = 0
    for path in log_files(directory):
        for line in iter_lines(path):
            row = parse_line(line)
            if row is None:
                skipped += 1
            elif row.get("kind") == "header":
                headers.append(row)
            else:
                records.append(row)
    return headers, records, skipped


def iter_lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        yield from handle


def parse_line(line: bytes) -> dict | None:
    try:
        row = json.loads(line)
    except ValueError:
        return None
    return row if isinstance(row, dict) and row.get("kind") in KINDS else None
