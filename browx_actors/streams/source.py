"""What a live-view stream needs of an engine: a frame source.

A session actor hands its stream a :class:`FrameSource` when asked (the
:class:`~browx_actors.streams.messages.WatchFrames` message); the stream runs it in its
own task and restarts it whenever the settings change. The chromium engine's source is
``Page.startScreencast`` on the current tab (:mod:`browx_actors.sessions.chromium.tabs.screencast`);
an Android source would loop over ``screencap``, scale and encode. Both fit the same
shape:

* :meth:`FrameSource.run` produces frames at the given :class:`SourceSettings` (the
  largest width, the JPEG quality, the frame rate the stream runs at) until it is
  cancelled, calling ``task_status.started()`` once it is producing (so the stream can
  tell a source that never started from one that failed later);
* each frame goes to ``deliver``, a plain function that decides at once (send, skip or
  drop: nothing is queued) and answers when the stream next wants a frame, so a source
  that can choose when to produce need not make frames that would only be skipped;
* a frame is a JPEG, as bytes or as the base64 text a transport such as CDP already
  carries (re-encoding it would cost more than the rest of its path), with its capture
  time;
* it ends by raising :class:`SourceGone` when what it captures went away (the tab
  closed, the target detached: the stream asks the session where to look now) or
  :class:`SourceFailed` for anything else (the stream ends with ``source-error``).

Pure: no engine, no socket; tests drive streams with a scripted source.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import attrs
import trio

__all__ = ["Deliver", "FrameSource", "SourceFailed", "SourceFrame", "SourceGone", "SourceSettings"]


@attrs.frozen
class SourceSettings:
    """What a source is told: frames at most ``max_width`` wide, JPEG ``quality``, ``fps`` per second."""

    max_width: int
    quality: int
    fps: float


@attrs.frozen
class SourceFrame:
    """One captured frame.

    ``jpeg`` is the image as bytes, or as standard base64 text when that is how the
    source received it. ``at`` is the capture time in epoch milliseconds (it goes on
    the wire); ``arrived`` is the Trio time the source had the frame in hand, from which
    the stream measures how long the frame took to reach the socket.
    """

    jpeg: bytes | str = attrs.field(repr=lambda data: f"<{len(data)} {type(data).__name__}>")
    at: int
    arrived: float


#: ``deliver(frame) -> when``: the stream takes the frame (or skips or drops it) at once and
#: answers the Trio time before which it wants no other (``-inf``: now; ``inf``: never).
Deliver = Callable[[SourceFrame], float]


class SourceGone(Exception):
    """What the source captured went away (a tab closed, a target detached)."""


class SourceFailed(Exception):
    """The source failed for another reason; the message says how (never with page content)."""


class FrameSource(Protocol):
    """Frames of one page (or screen) for one stream; see the module docstring."""

    #: What the source captures, for statistics: ``"chromium screencast, tab 2"``.
    description: str

    async def run(self, settings: SourceSettings, deliver: Deliver, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Produce frames at ``settings`` into ``deliver`` until cancelled.

        Calls ``task_status.started()`` once producing. Raises :class:`SourceGone` or
        :class:`SourceFailed`; whatever it started on the engine's side it stops on the
        way out, cancelled or not.
        """
