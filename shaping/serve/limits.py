"""What one request may hold, and reading its body as JSON without trusting it.

A body over ``max_body_bytes`` is refused from its Content-Length before it is read (413), or as soon as reading
passes the limit; a list longer than ``max_samples`` is refused (413) before any sample is scored. JSON that is
not UTF-8, not JSON, or nested deeper than Python's parser allows is a 400 naming the problem.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .wire import BadRequest

MB = 1 << 20


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 64 * MB  # an OpenRLHF batch of 1 sample is ~100 kB; a client's batch of 512 long ones fits
    max_samples: int = 4096

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1024 or self.max_samples < 1:
            raise ValueError(f"limits must allow at least 1 kB and 1 sample, got {self}")

    def check_length(self, content_length: Any) -> None:
        """Refuse a declared body size over the limit (before reading a byte of it)."""
        if content_length is None:
            return
        try:
            size = int(content_length)
        except (TypeError, ValueError):
            raise BadRequest(f"Content-Length {content_length!r} is not a number") from None
        if size > self.max_body_bytes:
            raise BadRequest(f"the body is {size} bytes; this server takes at most {self.max_body_bytes} "
                             "(--max-body-mb)", 413)


def parse_json(body: bytes) -> Any:
    """The body as JSON, or ``BadRequest`` saying why not."""
    if not body:
        raise BadRequest("the request has no body: send a JSON object")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"the body is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise BadRequest("the JSON nests too deeply") from None
    except ValueError as exc:
        raise BadRequest(f"the body is not JSON ({exc})") from None
