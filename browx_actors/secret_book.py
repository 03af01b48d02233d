"""Registered secrets: substituted into arguments on the way in, masked on the way out.

An agent registers ``register_secret({name: "PASSWORD", value: "hunter2"})`` and then
types ``<PASSWORD>`` wherever it would type the value. The dispatch path replaces the
alias with the value just before the handler runs (so the raw value exists only inside
the action core) and rewrites every raw value in the result back to its alias. Both
walks are pure functions over JSON-shaped data.

Secrets are registered per session (:class:`SecretBook`): a call substitutes only its
own session's, and every session's values are masked out of every result, so a value
registered in one session cannot leak through another's page. Two sessions may even
register the same name with different values; both values are masked.

A page rarely shows a value only as typed. Masking covers every form a page, a URL or
a request produces of the exact value (:func:`encodings`): JSON-escaped (with and
without ASCII escapes), percent-encoded as ``encodeURIComponent`` and as a URL's path
or query keeps it, form-encoded (``application/x-www-form-urlencoded``: a GET form
puts it in the URL that way), and base64 (standard and URL-safe, padded or not).
"""

from __future__ import annotations

import base64
import functools
import json
import re
import string
import urllib.parse
from collections.abc import Iterable, Mapping

from .errors import ToolError
from .jsonsafe import JsonValue

__all__ = [
    "SECRET_NAME",
    "SecretBook",
    "Secrets",
    "check_secret",
    "encodings",
    "mask_deep",
    "substitute_deep",
]

#: Secrets to mask: name -> value, or (name, value) pairs when one name has several values.
Secrets = Mapping[str, str] | Iterable[tuple[str, str]]

SECRET_NAME = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")
_ALIAS = re.compile(r"<([A-Z][A-Z0-9_]{0,63})>")


def check_secret(name: str, value: str) -> None:
    if not SECRET_NAME.match(name):
        raise ToolError(
            "bad-arg",
            "name must be 1-64 characters of A-Z, 0-9 and _, starting with a letter",
            field="name",
        )
    if len(value) < 3:
        # Masking a one- or two-character value would rewrite unrelated text everywhere.
        raise ToolError("bad-arg", "value must be at least 3 characters", field="value")


def substitute_deep(data: JsonValue, secrets: Mapping[str, str]) -> JsonValue:
    """``<NAME>`` aliases in every string replaced by the registered value."""
    if not secrets:
        return data
    if isinstance(data, str):
        if "<" not in data:
            return data
        return _ALIAS.sub(lambda m: secrets.get(m.group(1), m.group(0)), data)
    if isinstance(data, dict):
        return {k: substitute_deep(v, secrets) for k, v in data.items()}
    if isinstance(data, list):
        return [substitute_deep(v, secrets) for v in data]
    return data


#: Text the page agent clips gets this mark; the clipped part of a secret is still
#: a secret.
ELLIPSIS = "\u2026"
#: Shortest clipped fragment still masked. Shorter ones carry too little of the
#: value to matter and would mask ordinary words.
MIN_FRAGMENT = 3


#: What ``encodeURIComponent`` leaves as it is, beyond letters and digits.
_URI_COMPONENT_SAFE = "!'()*-._~"
#: What a URL keeps as typed in a path or query (the WHATWG percent-encode sets:
#: controls, space, non-ASCII, ``"``, ``#``, ``<``, ``>``, and ``?`` ``{`` ``}`` ``` ` ```
#: in a path are encoded; ``%`` stays, as browsers leave it).
_URL_PATH_SAFE = "".join(c for c in string.punctuation if c not in '"#<>?`{}')
_URL_QUERY_SAFE = "".join(c for c in string.punctuation if c not in "\"#<>'")


def _form_encoded(value: str) -> str:
    """``application/x-www-form-urlencoded``, as a browser submits a form: letters,
    digits and ``*-._`` stay, a space is ``+``, the rest is percent-encoded."""
    return urllib.parse.quote_plus(value, safe="*").replace("~", "%7E")


@functools.lru_cache(maxsize=1024)
def encodings(value: str) -> tuple[str, ...]:
    """Every distinct form of ``value`` a result may carry, the raw value first."""
    raw = value.encode("utf-8", "surrogatepass")
    forms = [
        value,
        json.dumps(value, ensure_ascii=False)[1:-1],
        json.dumps(value, ensure_ascii=True)[1:-1],
        urllib.parse.quote(raw, safe=_URI_COMPONENT_SAFE),
        urllib.parse.quote(raw, safe=_URL_PATH_SAFE),
        urllib.parse.quote(raw, safe=_URL_QUERY_SAFE),
        _form_encoded(value),
        base64.b64encode(raw).decode("ascii"),
        base64.urlsafe_b64encode(raw).decode("ascii"),
    ]
    forms += [form.rstrip("=") for form in forms[-2:]]
    return tuple(dict.fromkeys(form for form in forms if form))


def _forms(name: str, value: str) -> list[tuple[str, str]]:
    """The value in every form it may appear in results, each with its alias."""
    alias = f"<{name}>"
    return [(form, alias) for form in encodings(value)]


def mask_deep(data: JsonValue, secrets: Secrets) -> JsonValue:
    """Every secret value in every string (and dict key) rewritten to ``<NAME>``.

    Covers the value in each of its :func:`encodings`, and fragments of it clipped at
    an ellipsis (a long secret shortened in a snapshot name or a search snippet). Fields
    named ``*Base64`` hold binary payloads (pixels), not text, and are left alone: a
    secret's bytes there would be a coincidence, and rewriting them corrupts the image.
    """
    items = secrets.items() if isinstance(secrets, Mapping) else secrets
    pairs = [form for name, value in items for form in _forms(name, value)]
    if not pairs:
        return data
    # Longest first, so a secret that contains another is masked whole.
    pairs.sort(key=lambda p: -len(p[0]))
    return _mask(data, pairs)


def _mask(data: JsonValue, pairs: list[tuple[str, str]]) -> JsonValue:
    if isinstance(data, str):
        for raw, alias in pairs:
            if raw in data:
                data = data.replace(raw, alias)
        if ELLIPSIS in data:
            data = _mask_clipped(data, pairs)
        return data
    if isinstance(data, dict):
        return {
            _mask(k, pairs): (v if isinstance(k, str) and k.endswith("Base64") else _mask(v, pairs))
            for k, v in data.items()
        }
    if isinstance(data, (list, tuple)):
        return [_mask(v, pairs) for v in data]
    return data


def _mask_clipped(text: str, pairs: list[tuple[str, str]]) -> str:
    """Mask a secret's head cut off before an ellipsis, or its tail cut off after one."""
    for raw, alias in pairs:
        pieces = text.split(ELLIPSIS)
        for i in range(len(pieces)):
            if i < len(pieces) - 1:  # text before an ellipsis: does it end with a head?
                pieces[i] = _replace_edge(pieces[i], raw, alias, head=True)
            if i > 0:  # text after an ellipsis: does it start with a tail?
                pieces[i] = _replace_edge(pieces[i], raw, alias, head=False)
        text = ELLIPSIS.join(pieces)
    return text


def _replace_edge(piece: str, raw: str, alias: str, *, head: bool) -> str:
    for size in range(min(len(raw) - 1, len(piece)), MIN_FRAGMENT - 1, -1):
        if head and piece.endswith(raw[:size]):
            return piece[: len(piece) - size] + alias
        if not head and piece.startswith(raw[-size:]):
            return alias + piece[size:]
    return piece


class SecretBook:
    """The registered secrets of every session."""

    def __init__(self) -> None:
        self._by_session: dict[str, dict[str, str]] = {}

    def register(self, session_id: str, name: str, value: str) -> None:
        check_secret(name, value)
        self._by_session.setdefault(session_id, {})[name] = value

    def of(self, session_id: str) -> Mapping[str, str]:
        """What a call in ``session_id`` may substitute."""
        return self._by_session.get(session_id, {})

    def masks(self) -> list[tuple[str, str]]:
        """Every registered (name, value), of every session: what results are masked with.
        Two sessions may register the same name with different values; both are masked."""
        return [(name, value) for secrets in self._by_session.values() for name, value in secrets.items()]

    def forget(self, session_id: str) -> None:
        self._by_session.pop(session_id, None)
