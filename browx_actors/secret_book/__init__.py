"""Registered secrets: substituted into the arguments that take them, masked everywhere else.

An agent registers ``register_secret({name: "PASSWORD", value: "hunter2"})`` and then
types ``<PASSWORD>`` where it would type the value. The dispatch path replaces the
alias with the value just before the handler runs, in the parameters whose declaration
takes a secret (``Param.secrets``: a typed value, an expected value, a script; never a
path, a URL or a selector), so the raw value exists only inside the action core; and it
rewrites every raw value in the result back to its alias. Both walks are pure
functions over JSON-shaped data.

Secrets are registered per session (:class:`SecretBook`): a call substitutes only its
own session's, and every session's values are masked out of every result, so a value
registered in one session cannot leak through another's page. Two sessions may even
register the same name with different values; both values are masked.

A page rarely shows a value only as typed: masking covers every spelling a browser, a
URL, a form, JSON, JavaScript, Python or HTML writes of it (:mod:`.spellings`), with one
compiled expression per set of secrets (:mod:`.masking`). The server's log lines are
masked the same way (:mod:`.logs`), with the secrets of every book in the process.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping

from ..errors import ToolError
from ..jsonsafe import JsonValue
from .masking import ELLIPSIS, MIN_FRAGMENT, Secrets, masker, pairs_of
from .spellings import spellings

__all__ = [
    "ELLIPSIS",
    "MAX_VALUE",
    "MIN_FRAGMENT",
    "SECRET_NAME",
    "SecretBook",
    "Secrets",
    "check_secret",
    "encodings",
    "every_secret",
    "mask_deep",
    "mask_text",
    "substitute_deep",
]

SECRET_NAME = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")
_ALIAS = re.compile(r"<([A-Z][A-Z0-9_]{0,63})>")
#: Longest value registered: masking compiles an expression a few dozen characters per
#: character of the value (an API key or a JWT is well under this).
MAX_VALUE = 8192


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
    if len(value) > MAX_VALUE:
        raise ToolError("bad-arg", f"value must be at most {MAX_VALUE:,} characters", field="value")


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


def encodings(value: str) -> tuple[str, ...]:
    """Every distinct spelling of ``value`` (:func:`~.spellings.spellings`), the raw value first."""
    return tuple(dict.fromkeys(form for form in spellings(value).values() if form))


def mask_deep(data: JsonValue, secrets: Secrets, *, text: str | None = None) -> JsonValue:
    """Every secret value, in every spelling, in every string (and dict key) of
    ``data`` rewritten to ``<NAME>``; fragments of one clipped at an ellipsis too.
    Fields named ``*Base64`` (binary payloads) are left alone. ``data`` itself comes
    back when nothing had to change. ``text``, ``data``'s JSON text when the caller
    wrote it already, spares writing it again to ask whether anything may need masking."""
    compiled = masker(pairs_of(secrets))
    return data if compiled is None else compiled.deep(data, text)


def mask_text(text: str, secrets: Secrets) -> str:
    """:func:`mask_deep` of one string (a log line, an error message)."""
    compiled = masker(pairs_of(secrets))
    return text if compiled is None else compiled.text(text)


#: Every book in the process, for what the process writes outside any result: its log.
_BOOKS: weakref.WeakSet[SecretBook] = weakref.WeakSet()


def every_secret() -> list[tuple[str, str]]:
    """Every registered (name, value) of every live :class:`SecretBook` in the process."""
    return [pair for book in list(_BOOKS) for pair in book.masks()]


class SecretBook:
    """The registered secrets of every session.

    Read from other threads too (a log line formatted on Playwright's thread masks
    with it), so a change replaces the mapping whole instead of editing it in place.
    """

    def __init__(self) -> None:
        self._by_session: dict[str, dict[str, str]] = {}
        _BOOKS.add(self)

    def register(self, session_id: str, name: str, value: str) -> None:
        check_secret(name, value)
        own = {**self._by_session.get(session_id, {}), name: value}
        self._by_session = {**self._by_session, session_id: own}

    def of(self, session_id: str) -> Mapping[str, str]:
        """What a call in ``session_id`` may substitute."""
        return self._by_session.get(session_id, {})

    def masks(self) -> list[tuple[str, str]]:
        """Every registered (name, value), of every session: what results are masked with.
        Two sessions may register the same name with different values; both are masked."""
        return [(name, value) for secrets in self._by_session.values() for name, value in secrets.items()]

    def forget(self, session_id: str) -> None:
        if session_id in self._by_session:
            self._by_session = {k: v for k, v in self._by_session.items() if k != session_id}
