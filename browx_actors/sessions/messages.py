"""The messages every engine's session actor answers.

A session actor (chromium, android-app, ios-app, chrome-android) owns its engine's
resources and is reached only through its mailbox. The runtime sends it
:class:`ToolCall` for every session tool (ordered per session, in parallel across
sessions), :class:`SessionCall` when a runtime tool runs a function inside it
(``await_human``, ``canvas_diff``), and :class:`Describe` when someone lists sessions; a
live-view stream sends it :class:`~browx_actors.streams.messages.WatchFrames`. Nothing
reads a session's state from outside.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from ..tools import Arguments, Tool

__all__ = ["AwaitReady", "Describe", "SessionCall", "ToolCall"]


@attrs.frozen
class ToolCall:
    """Run ``tool`` inside the session: the handler its engine's table names, or its refusal.

    ``deadline`` is when the caller stops waiting (``trio.current_time()`` clock); the
    session's calls are bounded by it, and so is what an engine does on its device.
    """

    tool: Tool[Any]  # Any: any session tool; ``args`` is of its argument class
    args: Arguments
    deadline: float | None = None


@attrs.frozen
class SessionCall:
    """Run ``fn(session, args)`` inside the session actor; ``tool`` names it in errors."""

    tool: str
    # What a runtime tool runs inside the session: a function of the engine's own
    # session class and the tool's arguments (Any: the runtime tool chose both).
    fn: Callable[[Any, Any], Awaitable[object]]
    args: object
    deadline: float | None = None


@attrs.frozen
class Describe:
    """What the session is: ``{id, engine, url, ...}``, answered by the actor itself."""


@attrs.frozen
class AwaitReady:
    """Answered once a session that connects after it starts (a native session finding,
    leasing and booting its device) can take calls: its description, or the error that
    stopped it from connecting. The runtime asks it of the engines that connect so."""
