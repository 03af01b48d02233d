"""The messages every engine's session actor answers.

A session actor (chromium, android-app, ios-app) owns its engine's resources and is
reached only through its mailbox. The runtime sends it :class:`SessionCall` for every
session tool (ordered per session, in parallel across sessions) and :class:`Describe`
when someone lists sessions; a live-view stream sends it :class:`WatchFrames`. Nothing
reads a session's state from outside.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from ..actor import ActorRef

__all__ = ["AwaitReady", "Describe", "SessionCall", "WatchFrames"]


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
class WatchFrames:
    """A live-view stream asks for the frame source of the session's current page.

    Every engine's session actor answers it: with a
    :class:`~browx_actors.streams.source.FrameSource` for the page the tools act on now;
    with None when the engine has no frame source (the daemon hears
    ``view-unsupported``); or with ``ToolError("tab-closed")`` when the session has no
    page open. From then on the session casts ``stream`` a
    :class:`~browx_actors.streams.messages.FramesMoved` whenever its current page
    changes and a :class:`~browx_actors.streams.messages.SessionEnding` when it closes.
    """

    stream: ActorRef
class AwaitReady:
    """Answered once a session that connects after it starts (a native session finding,
    leasing and booting its device) can take calls: its description, or the error that
    stopped it from connecting. The runtime asks it of the engines that connect so."""
