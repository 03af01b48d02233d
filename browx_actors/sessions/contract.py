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

__all__ = ["Describe", "SessionCall", "WatchFrames"]


@attrs.frozen
class SessionCall:
    """Run ``fn(session, args)`` inside the session actor; ``tool`` names it in errors."""

    tool: str
    fn: Callable[[Any, dict[str, Any]], Awaitable[Any]]
    args: dict[str, Any]


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
