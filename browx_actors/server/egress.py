"""What every result passes on its way out of the server, in one place.

The dispatch hands each envelope through :func:`leaving` (and the arguments it records
through :func:`outgoing`, the same without the text) after the handler ran and before
anything sees it: the MCP client,
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

Masking runs first so it sees the text exactly as the page produced it; it asks the
result's compact JSON text (the one written below) whether any secret may be in it
before it walks anything (``secret_book.masking``). Steps 2 to 4
return their input unchanged (the same object, no copy) when there is nothing to fix.

Steps 2 to 4 are first asked in C, of the result's compact JSON text (:func:`leaving`):
a 2,000-node visual tree is 45,000 values, and three Python walks over them cost six
times what writing the text does. ``json.dumps`` refuses a non-finite number; a lone
surrogate passes into the text unescaped, so one search finds any; and when the text
holds no escape at all, every string (and key) appears in it verbatim between quotes
that no credential pattern crosses, so the text needs redacting exactly when some string
does. (An escape breaks that: an escaped newline joins the words around it, and a
pattern's first match can then swallow a credential the string's own match would have
found; so any escape sends the result to the walk.) Only what the text cannot rule out
is walked, and when nothing had to change the text itself rides on as the MCP text copy.

The MCP writer keeps a last line of defence of its own (``mcp_stdio.py``): a result
that still cannot be written is answered as an ``internal`` error, never a crash.
"""

from __future__ import annotations

import itertools

import attrs

from ..credentials import REDACTED, credential_name, redact_text
from ..jsonsafe import JsonValue, compact_json, finite_numbers, first_surrogate, valid_unicode
from ..secret_book import Secrets, mask_deep

__all__ = ["REDACTED", "Leaving", "credential_name", "finite_numbers", "leaving", "mask_secrets", "outgoing",
           "redact_text", "redact_urls", "valid_unicode"]


def redact_urls(data: JsonValue) -> JsonValue:
    """Every string (and dict key) of JSON-shaped ``data`` through :func:`~browx_actors.credentials.redact_text`.
    Fields named ``*Base64`` hold binary payloads and are left alone. Like the other
    steps it returns the very objects it was given wherever nothing changed, and copies
    only the containers on the path to a change."""
    if isinstance(data, str):
        return redact_text(data)
    if isinstance(data, dict):
        out: dict[object, object] | None = None
        for i, (key, value) in enumerate(data.items()):
            textual = isinstance(key, str)
            new_key = redact_text(key) if textual else key
            new_value = value if textual and key.endswith("Base64") else redact_urls(value)
            if out is None and (new_key is not key or new_value is not value):
                out = dict(itertools.islice(data.items(), i))
            if out is not None:
                out[new_key] = new_value
        return data if out is None else out
    if isinstance(data, (list, tuple)):
        items: list[object] | None = None
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


def mask_secrets(data: JsonValue, masks: Secrets, text: str | None = None) -> JsonValue:
    """Every registered secret value, in every spelling a page produces, as ``<NAME>``
    (``text``: ``data``'s JSON text, when it was written already)."""
    return mask_deep(data, masks, text=text)


@attrs.frozen
class Leaving:
    """A result as it may leave the server, and its compact JSON text when the check
    wrote it and no step changed anything (``None`` otherwise: write it afresh)."""

    data: JsonValue
    text: str | None


def leaving(data: JsonValue, masks: Secrets) -> Leaving:
    """``data`` through the steps above, in order, each walked only when the text says
    it may have something to do."""
    text = _json_text(data)
    # The text tells masking too whether any secret may be in the result.
    masked = mask_secrets(data, masks, text)
    if masked is not data:
        data, text = masked, _json_text(masked)
    if text is None or "\\" in text or redact_text(text) != text:
        data = redact_urls(data)
    if text is None or first_surrogate(text) >= 0:
        data = valid_unicode(data)
    if text is None:
        data = finite_numbers(data)
        return Leaving(data, None)
    # The steps copy what they change: the very same object is the very same text.
    return Leaving(data, text if data is masked else None)


def _json_text(data: JsonValue) -> str | None:
    try:
        return compact_json(data)
    except (TypeError, ValueError, RecursionError):  # a NaN, an infinity, a huge int, not JSON
        return None


def outgoing(data: JsonValue, masks: Secrets) -> JsonValue:
    """``data`` as it may leave the server (the steps above, in order)."""
    return leaving(data, masks).data
