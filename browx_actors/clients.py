"""Which MCP client a call comes from, so that clients sharing one runtime each see only
their own sessions.

Over stdio there is one client and no namespace: session ids are what the agent wrote.
Over HTTP every MCP session is a client, known here by a short id (``c1``, ``c2``...).
Its session ``task`` lives in the runtime as ``c1~task``: ``~`` is not allowed in a
session id an agent sends (``SESSION_ID_PATTERN``), so no client can name another's.
The dispatch scopes a call's ``session`` after its arguments are checked, and takes the
prefix off everything the call answers; the runtime lists, describes and counts only
the calling client's sessions.

The calling client rides a :class:`~contextvars.ContextVar` set around the call: a
``tool.batch`` and its ``after`` captures run in the same task, so they are scoped the
same way, and nothing lower in the tree needs to be told.

Pure, apart from the variable.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .jsonsafe import JsonValue

__all__ = ["SEPARATOR", "acting_for", "current", "named", "owned_by", "scoped", "unscoped"]

#: Between a client's id and its session's id. Not a character a session id may hold.
SEPARATOR = "~"

_CLIENT: ContextVar[str | None] = ContextVar("browx_client", default=None)


def current() -> str | None:
    """The client the running call comes from; None for stdio and the library."""
    return _CLIENT.get()


@contextmanager
def acting_for(client: str | None) -> Iterator[None]:
    """Run the calls inside as ``client``'s."""
    token = _CLIENT.set(client)
    try:
        yield
    finally:
        _CLIENT.reset(token)


def scoped(session: str, client: str | None) -> str:
    """The runtime's id of ``client``'s session ``session``."""
    return session if client is None else f"{client}{SEPARATOR}{session}"


def named(session_id: str) -> str:
    """The session's id as its client named it (``default`` opens by itself for each)."""
    return session_id.rpartition(SEPARATOR)[2]


def owned_by(session_id: str, client: str | None) -> bool:
    """Whether the runtime's session ``session_id`` is one ``client`` may see (every
    session, for no client: stdio, the library, the operator)."""
    return client is None or session_id.startswith(f"{client}{SEPARATOR}")


def unscoped(value: JsonValue, client: str | None) -> JsonValue:
    """``value`` with ``client``'s prefix taken off every string in it (ids, and the
    messages that quote them), so the client reads its sessions as it named them."""
    if client is None:
        return value
    prefix = f"{client}{SEPARATOR}"
    if isinstance(value, str):
        return value.replace(prefix, "")
    if isinstance(value, dict):
        return {key: unscoped(item, client) for key, item in value.items()}
    if isinstance(value, list):
        return [unscoped(item, client) for item in value]
    return value
