"""What one request and one connection may hold.

A body over ``max_body_bytes`` is refused from its Content-Length before it is read (413), or as soon as reading
passes the limit; a list longer than ``max_samples`` is refused (413) before any sample is scored (a body that is
not JSON is a 400 naming the problem: ``codec``). The connection limits (``app``): headers within
``header_timeout_s`` of a request's first byte, the body within ``read_timeout_s``, ``idle_timeout_s`` between
requests, a request or header line of at most ``max_line_bytes``, and at most ``max_connections`` open at once per
front process. Every one has a ``planshape serve`` flag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MB = 1 << 20


class BadRequest(Exception):
    """A request the server cannot read: ``status`` (4xx) and a message naming the problem."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 64 * MB  # an OpenRLHF batch of 1 sample is ~100 kB; a client's batch of 512 long ones fits
    max_samples: int = 4096
    header_timeout_s: float = 10.0  # a trainer sends its headers in one packet
    read_timeout_s: float = 60.0  # a 64 MB body at 10 Mbit/s takes 54 s
    idle_timeout_s: float = 75.0  # keep-alive between requests (aiohttp clients reuse connections for 15-30 s)
    max_connections: int = 1024  # per front process; below the usual 4096 open files with room for its workers
    max_line_bytes: int = 8190  # a request line or header line (aiohttp's and nginx's order)

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1024 or self.max_samples < 1:
            raise ValueError(f"limits must allow at least 1 kB and 1 sample, got {self}")
        for name in ("header_timeout_s", "read_timeout_s", "idle_timeout_s"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0 < value < float("inf")):
                raise ValueError(f"--{name.removesuffix('_s').replace('_', '-')} must be a positive number of "
                                 f"seconds, got {value!r}")
        if self.max_connections < 1 or self.max_line_bytes < 256:
            raise ValueError(f"--max-connections must be >= 1 and --max-line-bytes >= 256, got "
                             f"{self.max_connections} and {self.max_line_bytes}")

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

