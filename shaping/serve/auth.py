"""Who may score: a bearer token, a list of client networks, or both; loopback only unless told otherwise.

The stock clients (OpenRLHF, slime) post bare JSON to the URL as configured, with no header, so the token is
also read where such a URL can carry it: a path prefix ``/t/<token>/...`` or a ``?token=`` parameter, beside
``Authorization: Bearer <token>``. Tokens are compared in constant time and never logged (``redact``).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TOKEN_PREFIX = "/t/"  # /t/<token>/get_reward
TOKEN_PARAM = "token"
MIN_TOKEN_CHARS = 16

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class SetupError(ValueError):
    """A server setting that cannot be served safely (said at start-up, with what to fix)."""


def read_token(path: str | os.PathLike[str]) -> str:
    """The token in ``path`` (surrounding whitespace stripped): at least 16 characters, not readable by others."""
    file = Path(path)
    try:
        token = file.read_text(encoding="utf-8").strip()
        mode = file.stat().st_mode
    except OSError as exc:
        raise SetupError(f"--token-file {path}: {exc.strerror or exc}") from None
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() or c in "/?#&%" for c in token):
        raise SetupError(f"--token-file {path}: the token must be at least {MIN_TOKEN_CHARS} characters with no "
                         "spaces or any of / ? # & % (it travels in URLs); e.g. "
                         "python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE")
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SetupError(f"--token-file {path}: readable by other users (mode {stat.S_IMODE(mode):o}); chmod 600 it")
    return token


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def networks(specs: Sequence[str]) -> tuple[Network, ...]:
    """``--allow`` values (``10.0.0.0/8``, ``192.168.1.7``) as networks; a bad one is a start-up error."""
    out = []
    for spec in specs:
        try:
            out.append(ipaddress.ip_network(spec, strict=False))
        except ValueError:
            raise SetupError(f"--allow {spec!r} is not an IP network (e.g. 10.0.0.0/8 or 192.168.1.7)") from None
    return tuple(out)


@dataclass(frozen=True)
class Guard:
    """The server's access rule: ``token`` (None: none needed) and ``allow`` (empty: any client that can reach
    the bind address)."""

    token: str | None = None
    allow: tuple[Network, ...] = field(default_factory=tuple)

    @classmethod
    def for_bind(cls, host: str, token: str | None, allow: tuple[Network, ...]) -> Guard:
        """Refuse a non-loopback bind with neither a token nor an allow-list (anyone on the network could score)."""
        if not is_loopback(host) and token is None and not allow:
            raise SetupError(f"--host {host} listens beyond this machine: give --token-file FILE (clients add the "
                             "token to the URL, /t/TOKEN/get_reward) or --allow CIDR (the trainer nodes' network), "
                             "or bind 127.0.0.1")
        return cls(token, allow)

    def split(self, path: str) -> tuple[str, str | None]:
        """(the route path, the token in the path prefix or None)."""
        if path.startswith(TOKEN_PREFIX):
            rest = path[len(TOKEN_PREFIX):]
            token, _, tail = rest.partition("/")
            return "/" + tail, token
        return path, None

    def check(self, peer: str | None, path_token: str | None, headers: Mapping[str, str],
              query: Mapping[str, str]) -> tuple[int, str] | None:
        """None when the client may go on, else (status, message): 403 outside the allow-list, 401 without the
        right token."""
        if self.allow:
            try:
                address = ipaddress.ip_address(peer or "")
            except ValueError:
                return 403, "this client's address is not on the server's --allow list"
            if not any(address in net for net in self.allow):
                return 403, "this client's address is not on the server's --allow list"
        if self.token is None:
            return None
        given = path_token or query.get(TOKEN_PARAM) or _bearer(headers.get("Authorization", ""))
        if not given:
            return 401, ("a token is required: Authorization: Bearer TOKEN, a /t/TOKEN/ path prefix or "
                         "?token=TOKEN")
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
            return 401, "wrong token"
        return None

    def redact(self, text: str) -> str:
        """``text`` (a path or URL) with the token replaced, for logs."""
        return text.replace(self.token, "***") if self.token else text


def _bearer(value: str) -> str | None:
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
