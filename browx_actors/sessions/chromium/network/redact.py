"""Credentials out of what the network log keeps: URLs and headers, redacted at ingest.

The session records its pages' requests (``network_read``); what it records is what an
agent, a transcript and a diagnostics file may later hold. So credentials never enter
the record: a URL's user-info and its credential-bearing query parameters (the rule
of :mod:`browx_actors.credentials`, the same one the egress applies), and the
headers that carry sessions (``authorization``, ``proxy-authorization``, ``cookie``,
``set-cookie``, and the API-key headers that services commonly use), are replaced by
:data:`~browx_actors.credentials.REDACTED` before anything is stored. Registered secrets are masked again on the
way out by the dispatch, whatever their form; this is the part no registration covers.

Pure: no I/O, tested directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ....credentials import REDACTED, redact_url

__all__ = ["REDACTED", "SECRET_HEADERS", "clip_value", "redact_headers", "redact_url"]

#: Header names (lower case) whose values are credentials.
SECRET_HEADERS = frozenset({
    "authorization", "proxy-authorization", "cookie", "set-cookie",
    "x-api-key", "x-auth-token", "x-csrf-token", "x-xsrf-token",
})

#: Longest header value kept, and most headers kept per message.
HEADER_VALUE_MAX = 300
HEADERS_MAX = 40


def redact_headers(headers: Mapping[str, object] | Iterable[tuple[str, object]]) -> dict[str, str]:
    """Headers as ``{name: value}`` strings, credentials replaced, long values clipped,
    at most :data:`HEADERS_MAX` of them (a ``(+N more)`` key says how many were left out)."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    out: dict[str, str] = {}
    left_out = 0
    for name, value in items:
        if len(out) >= HEADERS_MAX:
            left_out += 1
            continue
        text = str(value)
        if name.lower() in SECRET_HEADERS:
            # Several Set-Cookie lines arrive joined by newlines: say how many there were.
            lines = text.count("\n") + 1
            text = REDACTED if lines == 1 else f"{REDACTED} ({lines} values)"
        out[name] = clip_value(text)
    if left_out:
        out[f"(+{left_out} more)"] = ""
    return out


def clip_value(value: str) -> str:
    """One header value, clipped to :data:`HEADER_VALUE_MAX` characters."""
    return value if len(value) <= HEADER_VALUE_MAX else value[: HEADER_VALUE_MAX - 1] + "\u2026"
