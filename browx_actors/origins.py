"""The operator's origin policy: which origins the browsers may reach. Pure, no I/O.

``--allowed-origins`` / ``--blocked-origins`` (``BROWX_ALLOWED_ORIGINS``,
``BROWX_BLOCKED_ORIGINS``; ``;`` or ``,`` between patterns, as Playwright MCP's take
them) give patterns over origins:

- ``https://app.example.com`` or ``https://app.example.com:8443``: that origin;
- ``app.example.com``: that host on any scheme and port;
- ``*.example.com``: its subdomains (not ``example.com`` itself, which is its own pattern);
- ``*``: every origin.

Only web origins are judged (``http``, ``https``, ``ws``, ``wss``): ``about:``, ``data:``,
``blob:`` and an app's deep link reach no web server and are never refused. A web URL is
refused when a blocked pattern matches it (the block list wins), or when an allow list
is given and none of its patterns does.
The answer names the origin and the rule, so the agent hears what stopped it and why.

This is defense in depth against a page steering an agent somewhere it should not go,
not a boundary: a page can still reach the network in ways no request layer sees
(a WebSocket the engine does not intercept, a DNS lookup), and it is only as good as the
patterns the operator writes.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import attrs

__all__ = ["OriginPolicy", "OriginRule", "origin_of", "parse_origin_patterns"]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_PATTERN = re.compile(r"^(?:(?P<scheme>https?|wss?)://)?(?P<host>\*|(?:\*\.)?[a-z0-9.-]+|\[[0-9a-f:.]+\])"
                      r"(?::(?P<port>\d{1,5}))?/?$")


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL, without credentials; None for any other
    (``about:``, ``data:``, a URL that does not parse): what storage, permissions and
    the policies key a page by."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.rsplit('@', 1)[-1].lower()}"


@attrs.frozen
class OriginRule:
    """One pattern, parsed (see the module notes)."""

    text: str
    scheme: str | None
    host: str
    port: int | None

    def matches(self, scheme: str, host: str, port: int) -> bool:
        if self.scheme is not None and self.scheme != scheme:
            return False
        if self.port is not None and self.port != port:
            return False
        if self.host == "*":
            return True
        if self.host.startswith("*."):
            return host.endswith(self.host[1:]) and host != self.host[2:]
        return host == self.host


def parse_origin_patterns(text: str | None, *, source: str) -> tuple[OriginRule, ...]:
    """``;`` or ``,`` separated patterns as rules; a malformed one is a ValueError naming
    it and ``source`` (the variable or flag it came from)."""
    rules = []
    for raw in re.split(r"[;,]", text or ""):
        raw = raw.strip()
        if not raw:
            continue
        match = _PATTERN.match(raw.lower())
        if match is None:
            raise ValueError(f"{source}: {raw!r} is not an origin pattern (https://host[:port], host, *.host or *)")
        port = match.group("port")
        if port is not None and not 0 < int(port) < 65536:
            raise ValueError(f"{source}: {raw!r} has no valid port")
        rules.append(OriginRule(raw.strip(), match.group("scheme"), match.group("host"),
                                None if port is None else int(port)))
    return tuple(rules)


@attrs.frozen
class OriginPolicy:
    """The allow and block lists; empty both: everything is allowed."""

    allowed: tuple[OriginRule, ...] = ()
    blocked: tuple[OriginRule, ...] = ()
    #: Origins a person let one session reach (a confirm rule ``on = "off-allow-list"``):
    #: exact ``scheme://host:port`` origins, judged before either list.
    admitted: frozenset[str] = frozenset()

    @property
    def active(self) -> bool:
        return bool(self.allowed or self.blocked)

    def refusal(self, url: str) -> tuple[str, str] | None:
        """``(origin, why)`` when ``url`` may not be reached, else None."""
        if not self.active:
            return None
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            return None  # no web origin: about:, data:, blob:, an app's deep link
        host = parts.hostname.lower()
        try:
            port = parts.port or _DEFAULT_PORTS.get(scheme, 0)
        except ValueError:
            port = 0
        origin = f"{scheme}://{parts.netloc.rsplit('@', 1)[-1].lower()}"
        if origin in self.admitted:
            return None
        for rule in self.blocked:
            if rule.matches(scheme, host, port):
                return origin, f"blocked by {rule.text!r} (--blocked-origins)"
        if self.allowed and not any(rule.matches(scheme, host, port) for rule in self.allowed):
            listed = ", ".join(rule.text for rule in self.allowed)
            return origin, f"not on the allowed origins (--allowed-origins: {listed})"
        return None

    def admitting(self, origin: str) -> OriginPolicy:
        """This policy with ``origin`` (as :meth:`refusal` names it) let through."""
        return attrs.evolve(self, admitted=self.admitted | {origin})
