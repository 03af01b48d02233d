"""The messages of the live view, between the operator channel, the stream supervisor,
each stream and the session it watches.

* The operator channel to the :class:`~.supervisor.StreamSupervisor` (casts, in the order
  the daemon's lines came): :class:`StartView`, :class:`StopView`, :class:`AckFrame`,
  and :class:`ChannelDown` when a link dropped. Each names the link generation it came
  on, so nothing from one connection touches a stream of another.
* The runtime to the supervisor: :class:`StreamStatus` (its statistics, no frame content).
* The supervisor to a :class:`~.stream.LiveViewStream`: :class:`Acked`, :class:`EndStream`,
  :class:`DescribeStream`; the stream back: :class:`StreamEnded`.
* A stream to the session it watches: :class:`WatchFrames` (every engine's session
  actor answers it); the session back to the streams that watch it: :class:`FramesMoved`
  and :class:`SessionEnding`.
"""

from __future__ import annotations

import attrs

from ..jsonsafe import JsonObject
from ..kernel.actor_ref import ActorRef
from .outlet import Outlet
from .request import ViewRequest

__all__ = ["AckFrame", "Acked", "ChannelDown", "DescribeStream", "EndStream", "FramesMoved", "SessionEnding",
           "StartView", "StopView", "StreamEnded", "StreamStatus", "WatchFrames"]


@attrs.frozen
class StartView:
    """A daemon's ``view.start``, parsed; the stream's lines go out through ``outlet``."""

    request: ViewRequest
    outlet: Outlet


@attrs.frozen
class StopView:
    """A daemon's ``view.stop`` for ``session`` on link ``generation``."""

    session: str
    generation: int


@attrs.frozen
class AckFrame:
    """A daemon's ``frame.ack``."""

    session: str
    seq: int
    generation: int


@attrs.frozen
class ChannelDown:
    """Link ``generation`` dropped: its streams end with ``channel-down``; a redial resumes none."""

    generation: int


@attrs.frozen
class StreamStatus:
    """Reply: ``{limit, streams: [...], ended: [...]}``, each stream describing itself."""


@attrs.frozen
class Acked:
    """The daemon acked frame ``seq``."""

    seq: int


@attrs.frozen
class EndStream:
    """End the stream with ``reason`` (a ``view.stopped`` reason; None: replaced, no line)."""

    reason: str | None


@attrs.frozen
class DescribeStream:
    """Reply: the stream's statistics (counts, level, round trips, writes; never a frame)."""


@attrs.frozen
class StreamEnded:
    """A stream's last word to its supervisor: why it ended and its final statistics."""

    session: str
    reason: str
    statistics: JsonObject = attrs.field(eq=False)


@attrs.frozen
class FramesMoved:
    """The session's current page changed (another tab was selected, or the current one
    closed): ask the session for its frame source again."""


@attrs.frozen
class SessionEnding:
    """The session is closing: end with ``session-closed``."""


@attrs.frozen
class WatchFrames:
    """A live-view stream asks for the frame source of the session's current page.

    Every engine's session actor answers it: with a
    :class:`~browx_actors.streams.source.FrameSource` for the page the tools act on now;
    with None when the engine has no frame source (the daemon hears
    ``view-unsupported``); or with ``ToolError("tab-closed")`` when the session has no
    page open. From then on the session casts ``stream`` a
    :class:`FramesMoved` whenever its current page
    changes and a :class:`SessionEnding` when it closes.
    """

    stream: ActorRef
