"""Registered secrets: substituted into arguments on the way in, masked on the way out.

An agent registers ``register_secret({name: "PASSWORD", value: "hunter2"})`` and then
types ``<PASSWORD>`` wherever it would type the value. The dispatch path replaces the
alias with the value just before the handler runs (so the raw value exists only inside
the action core) and rewrites every raw value in the result back to its alias. Both
walks are pure functions over JSON-shaped data.

Secrets are registered per session (:class:`SecretBook`): a call substitutes only its
own session's, and every session's values are masked out of every result, so a value
registered in one session cannot leak through another's page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ToolError

__all__ = [
    "SECRET_NAME",
    "SecretBook",
    "Secrets",
    "check_secret",
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


def substitute_deep(data: Any, secrets: Mapping[str, str]) -> Any:
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


def _forms(name: str, value: str) -> list[tuple[str, str]]:
    """The value as it may appear in results: raw, and escaped as in a JSON string
    (snapshot quoting and error messages use JSON escaping)."""
    alias = f"<{name}>"
    forms = [(value, alias)]
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    if escaped != value:
        forms.append((escaped, alias))
    return forms


def mask_deep(data: Any, secrets: Secrets) -> Any:
    """Every secret value in every string (and dict key) rewritten to ``<NAME>``.

    Covers the raw value, its JSON-escaped form, and fragments of it clipped at an
    ellipsis (a long secret shortened in a snapshot name or a search snippet). Fields
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


def _mask(data: Any, pairs: list[tuple[str, str]]) -> Any:
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
