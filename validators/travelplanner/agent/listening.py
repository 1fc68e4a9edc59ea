"""A listening socket bound before a server says it serves, so a busy port is one clear line, not a banner
followed by a traceback. Shared by ``planshape mcp`` and ``planshape serve``; no server package imported here."""

from __future__ import annotations

import errno
import os
import socket


def listen(host: str, port: int, what: str) -> socket.socket:
    """Bind ``host:port`` for the server named ``what``; a port in use or a host this machine does not have is a
    ``ValueError`` that says what to change."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be in 0-65535, got {port}")
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        why = os.strerror(exc.errno) if isinstance(exc.errno, int) and exc.errno > 0 else exc.strerror or str(exc)
        fix = "the port is in use: pick another --port" if exc.errno == errno.EADDRINUSE else "check --host and --port"
        raise ValueError(f"cannot serve {what} on {host}:{port} ({why}); {fix}") from None
