"""What every result passes on its way out of the server, in one place.

The dispatch hands each envelope (and the arguments it records) through
:func:`outgoing` after the handler ran and before anything sees it: the MCP client,
the library caller, the recorder. Each step is a pure function over JSON-shaped data,
applied in order:

1. :func:`mask_secrets`: every registered secret back to its ``<NAME>`` alias;
2. :func:`redact_urls`: credentials carried in URLs replaced by ``<redacted>``: the
   ``user:password@`` of an address, and the value of every query parameter named
   like a credential (``?token=...``, ``&X-Amz-Signature=...``), wherever a string
   holds one: a navigation's ``to``, a link's ``url=`` in a snapshot, a console line,
   a recorded argument;
3. :func:`valid_unicode`: lone UTF-16 surrogates (a page's ``document.title =
   '\\ud800'``) replaced by U+FFFD, so every string can be written as UTF-8;
4. :func:`finite_numbers`: NaN and infinities (a page's ``0/0``) become ``null``,
   since JSON has no such numbers and strict readers refuse a bare ``NaN``.

Masking runs first so it sees the text exactly as the page produced it. Steps 3 and 4
return their input unchanged (the same object, no copy) when there is nothing to fix.
The MCP writer keeps a last line of defence of its own (``mcp_stdio.py``): a result
that still cannot be written is answered as an ``internal`` error, never a crash.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from ..jsonsafe import finite_numbers, valid_unicode
from ..secrets import Secrets, mask_deep

__all__ = ["REDACTED", "credential_name", "finite_numbers", "mask_secrets", "outgoing", "redact_url_text",
           "redact_urls", "valid_unicode"]

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


def redact_url_text(text: str) -> str:
    """``text`` with the credentials of every URL (or query string) in it redacted
    (the very same string when it holds none)."""
    redacted = text
    if "@" in redacted:
        redacted = _USERINFO.sub(_userinfo, redacted)
    if "=" in redacted:
        redacted = _QUERY_PARAM.sub(_param, redacted)
    return text if redacted == text else redacted


def redact_urls(data: Any) -> Any:
    """Every string (and dict key) of JSON-shaped ``data`` through :func:`redact_url_text`.
    Fields named ``*Base64`` hold binary payloads and are left alone. Like the other
    steps it returns the very objects it was given wherever nothing changed, and copies
    only the containers on the path to a change."""
    if isinstance(data, str):
        return redact_url_text(data)
    if isinstance(data, dict):
        out: dict[Any, Any] | None = None
        for i, (key, value) in enumerate(data.items()):
            textual = isinstance(key, str)
            new_key = redact_url_text(key) if textual else key
            new_value = value if textual and key.endswith("Base64") else redact_urls(value)
            if out is None and (new_key is not key or new_value is not value):
                out = dict(itertools.islice(data.items(), i))
            if out is not None:
                out[new_key] = new_value
        return data if out is None else out
    if isinstance(data, (list, tuple)):
        items: list[Any] | None = None
        for i, value in enumerate(data):
            new_value = redact_urls(value)
            if items is None and new_value is not value:
                items = list(data[:i])
            if items is not None:
                items.append(new_value)
        if items is None:
            return data
        return tuple(items) if isinstance(data, tuple) else items
    return data


def mask_secrets(data: Any, masks: Secrets) -> Any:
    """Every registered secret value, in every encoding a page produces, as ``<NAME>``."""
    return mask_deep(data, masks)


def outgoing(data: Any, masks: Secrets) -> Any:
    """``data`` as it may leave the server (the steps above, in order)."""
    return finite_numbers(valid_unicode(redact_urls(mask_secrets(data, masks))))
