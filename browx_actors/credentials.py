"""Credentials out of text: the ``user:password@`` of a URL and the values of its
credential-named query parameters, replaced by :data:`REDACTED`.

Two places need the same rule, so it lives here once: the egress step that redacts
every string leaving the server (``server/egress.py``), and the network log, which
redacts what it records as it comes in, so no credential is ever held
(``sessions/chromium/network/redact.py``). A parameter is a credential by the words of its
name (``api_key``, ``accessToken``, ``X-Amz-Signature``, ``jsessionid``), not by a
fixed list, so the names services invent are covered too. The rest of a URL is left
character for character as it was (no re-encoding), so it still matches what the page
asked for.

The server's log goes through :class:`RedactingFormatter` (``__main__.py``): the
libraries under it log the URLs they connect to at debug level (trio-websocket names a
fleet's ``?token=`` as it opens the socket).

Pure and a leaf: it imports nothing from the package.
"""

from __future__ import annotations

import logging
import re

__all__ = ["REDACTED", "RedactingFormatter", "credential_name", "redact_text", "redact_url"]

REDACTED = "<redacted>"

#: Words a credential's parameter name is made of (``api_key``, ``accessToken``...).
_CREDENTIAL_WORDS = frozenset({
    "password", "passwd", "pwd", "pass", "token", "apikey", "secret", "auth", "key", "session", "sig",
    "signature", "credential", "credentials",
})
#: Endings of one-word names that join a credential word to another (``jsessionid``,
#: ``oauth``, ``xsrftoken``, ``clientsecret``).
_CREDENTIAL_ENDINGS = ("password", "passwd", "token", "secret", "apikey", "sessionid", "signature", "auth",
                       "credential", "credentials")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")

#: ``scheme://userinfo@``: the userinfo part is whatever precedes the first ``@`` of
#: the authority.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^/?#@\s\"'<>]+)@")
#: ``?name=value`` / ``&name=value`` (and ``;name=value``) anywhere in a string.
_QUERY_PARAM = re.compile(r"([?&;])([^=&#\s\"'<>?;]{1,100})=([^&#\s\"'<>;]*)")
#: The same within one URL known to be one: its user-info up to its first ``@`` before
#: the path, and each ``name=value`` of its query, the value up to the next ``&`` or ``#``.
_URL_USERINFO = re.compile(r"(?i)^([a-z][a-z0-9+.\-]*://)([^/?#@]+)@")
_URL_QUERY_PARAM = re.compile(r"(^|&)([^=&#]{1,100})=([^&#]*)")


def credential_name(name: str) -> bool:
    """Is a query parameter of this name a credential? Matched by word, so ``api_key``,
    ``accessToken``, ``X-Amz-Signature`` and ``sessionid`` are; ``keyword`` is not."""
    words = [w.lower() for w in _WORD.findall(name)]
    if any(w in _CREDENTIAL_WORDS for w in words):
        return True
    compact = "".join(words)
    if compact in _CREDENTIAL_WORDS:
        return True
    return compact.endswith(_CREDENTIAL_ENDINGS)


def _userinfo(match: re.Match[str]) -> str:
    scheme, info = match.group(1), match.group(2)
    if info == REDACTED or info.endswith(":" + REDACTED):
        return match.group(0)
    user, colon, _ = info.partition(":")
    # A lone userinfo is a token as often as a name (https://TOKEN@host): all of it goes.
    return f"{scheme}{user}:{REDACTED}@" if colon else f"{scheme}{REDACTED}@"


def _param(match: re.Match[str]) -> str:
    lead, name, value = match.groups()
    if not value or value == REDACTED or not credential_name(name):
        return match.group(0)
    return f"{lead}{name}={REDACTED}"


def redact_text(text: str) -> str:
    """``text`` with the credentials of every URL (or query string) in it redacted
    (the very same string when it holds none). A value ends where a URL in prose ends
    too: at whitespace, a quote or an angle bracket."""
    redacted = text
    if "@" in redacted:
        redacted = _USERINFO.sub(_userinfo, redacted)
    if "=" in redacted:
        redacted = _QUERY_PARAM.sub(_param, redacted)
    return text if redacted == text else redacted


def redact_url(url: str) -> str:
    """One whole URL (a request's, a frame's), its credentials redacted: here a value
    runs to the next ``&`` or ``#`` whatever it holds, quotes and spaces included."""
    redacted = url
    if "@" in redacted:
        redacted = _URL_USERINFO.sub(_userinfo, redacted, count=1)
    if "=" in redacted:
        head, sep, query = redacted.partition("?")
        if sep:
            redacted = head + sep + _URL_QUERY_PARAM.sub(_param, query)
    return url if redacted == url else redacted




class RedactingFormatter(logging.Formatter):
    """Formats with ``inner``, then redacts the credentials of every URL in the whole
    line (message, arguments and traceback together)."""

    def __init__(self, inner: logging.Formatter | None = None) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(self.inner.format(record))
