"""Who may reach the HTTP transport: its options, and the check every request passes
before MCP sees it. Pure: tested directly.

- A token (``--auth-token`` / ``BROWX_AUTH_TOKEN``) is required to listen anywhere but
  loopback. With one set, every request carries ``Authorization: Bearer <token>``,
  compared in constant time; without it, 401.
- ``Origin``, when a browser sends one, must be a loopback origin or one allowed by
  ``--allowed-origin``: a page elsewhere cannot drive the server through its user's
  browser (403).
- ``Host`` must name loopback while the server listens there, so a DNS name rebound
  to 127.0.0.1 cannot reach it (403). Listening elsewhere, the token is the guard.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

import attrs

__all__ = ["HttpOptions", "is_loopback", "refusal"]

#: The idle time after which an HTTP client's MCP session and browx sessions end.
DEFAULT_IDLE_TIMEOUT = 1800.0
_LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is loopback."""
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@attrs.frozen
class HttpOptions:
    """How ``serve --port`` listens. Refuses, at construction, a host other than
    loopback without a token."""

    port: int = attrs.field(validator=attrs.validators.and_(attrs.validators.ge(0), attrs.validators.le(65535)))
    host: str = "127.0.0.1"
    token: str | None = attrs.field(default=None, repr=False)
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    #: Origins a browser page may call from, besides loopback ones (``https://app.example``).
    allowed_origins: tuple[str, ...] = ()

    def __attrs_post_init__(self) -> None:
        if not is_loopback(self.host) and not self.token:
            raise ValueError(f"--host {self.host} is reachable from other machines: set --auth-token "
                             "(or BROWX_AUTH_TOKEN) so that only clients holding it get in")
        if self.token is not None and len(self.token) < 16:
            raise ValueError("the auth token must be at least 16 characters")
        if not self.idle_timeout > 0:
            raise ValueError("--idle-timeout must be a positive number of seconds")


def refusal(headers: Mapping[str, str], options: HttpOptions) -> tuple[int, str] | None:
    """Why a request with ``headers`` (lower-case names) is refused, as ``(status,
    reason)``; None to let it through. The reason never quotes the token."""
    if options.token is not None:
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), options.token.encode()):
            return 401, "missing or wrong bearer token (Authorization: Bearer <token>)"
    origin = headers.get("origin")
    if origin and origin not in options.allowed_origins and not is_loopback(urlsplit(origin).hostname or ""):
        return 403, f"origin {origin} is not allowed (--allowed-origin adds one)"
    if is_loopback(options.host):
        host = headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if not is_loopback(name):
            return 403, f"host {host or '(none)'} is not this server's loopback address"
    return None
