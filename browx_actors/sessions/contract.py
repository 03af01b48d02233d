"""The messages every engine's session actor answers.

A session actor (chromium, android-app, ios-app) owns its engine's resources and is
reached only through its mailbox. The runtime sends it :class:`SessionCall` for every
session tool (ordered per session, in parallel across sessions) and :class:`Describe`
when someone lists sessions; a live-view stream sends it
:class:`~browx_actors.streams.messages.WatchFrames`. Nothing reads a session's state from
outside.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs

__all__ = ["AwaitReady", "Describe", "SessionCall"]


@attrs.frozen
class SessionCall:
    """Run ``fn(session, args)`` inside the session actor; ``tool`` names it in errors.

    ``deadline`` is when the caller stops waiting (``trio.current_time()`` clock), so an
    engine can bound what the call does on its device by it (None: no deadline given).
    """

    tool: str
    fn: Callable[[Any, dict[str, Any]], Awaitable[Any]]
    args: dict[str, Any]
    deadline: float | None = None


@attrs.frozen
class Describe:
    """What the session is: ``{id, engine, url, ...}``, answered by the actor itself."""


@attrs.frozen
class AwaitReady:
    """Answered once a session that connects after it starts (a native session finding,
    leasing and booting its device) can take calls: its description, or the error that
    stopped it from connecting. The runtime asks it of the engines that connect so."""
