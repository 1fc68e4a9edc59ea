"""Read a JSON-lines file that another program wrote: every line gives a value or a reason, never an exception.

Lines are split on ``\\n`` only: a JSON string may hold U+2028, U+0085 or a form feed unescaped, and
``str.splitlines`` would cut the line there. A UTF-8 byte-order mark at the start is dropped. A line that is
not UTF-8, not JSON, or nested deeper than the parser can follow gets a reason instead of a value.
"""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Line:
    """One non-blank line: ``value`` when it parsed, else ``error`` says why not."""

    number: int
    value: Any = None
    error: str | None = None


def read_jsonl(path: str | Path) -> list[Line]:
    """Every non-blank line of ``path``, numbered from 1. Raises OSError only (missing or unreadable file)."""
    data = Path(path).read_bytes()
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    out = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.append(Line(number, error=f"not UTF-8 ({exc.reason} at byte {exc.start})"))
            continue
        if not text.strip():
            continue
        try:
            out.append(Line(number, json.loads(text)))
        except RecursionError:
            out.append(Line(number, error="JSON nested too deeply"))
        except ValueError as exc:
            out.append(Line(number, error=f"not JSON ({str(exc)[:80]})"))
    return out


def kind(value: Any) -> str:
    """A JSON value's type in JSON's words, for messages."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)
