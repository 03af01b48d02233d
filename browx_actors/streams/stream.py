"""The LiveViewStream actor: one view of one session, from its frame source to its outlet.

The stream is thin on purpose. Every decision about a frame (send it, skip it, drop it
and why), every timeout and every level change is :class:`~.stepdown.StreamPolicy`'s;
the stream feeds it the source's frames and the daemon's acks, sleeps exactly until
the policy's next deadline, and does what its events say:

* **A frame** arrives from the source through :meth:`LiveViewStream._deliver`, a plain
  function: the policy decides at once, given whether the outlet is backed up (the
  channel still writing the previous frame); a frame to send is cut into its parts
  and handed to the outlet, which writes all of them together. Nothing is queued:
  a frame the policy will not send is gone.
* **A level change** restarts the source at the level's width (the quality stays the
  request's); the frame rate is the policy's pacing, and the source is told it so it
  need not produce more.
* **The session** answers :class:`~.messages.WatchFrames` with the
  source of its current page and tells the stream when that page changes
  (:class:`~.messages.FramesMoved`: ask again and follow it) or the session closes
  (:class:`~.messages.SessionEnding`). A source whose page went away
  (:class:`~.source.SourceGone`) also sends the stream back to the session, which says
  where to look now, or that no page is left (``page-closed``) or that it is gone
  itself (``session-closed``).

Its lines, in order: ``view.started`` once the source first produces (or one ``error``
line if the view cannot start: ``unknown-session``, ``view-unsupported``,
``view-failed``), its frames, and one ``view.stopped`` with the reason, unless the
view was replaced by a newer ``view.start`` (which answers with its own
``view.started``) or the link it would go out on is gone.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
from collections.abc import Iterator

import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..kernel.actor import Actor
from ..kernel.actor_ref import ActorRef, ActorUnavailable
from .framing import FrameTooLarge, NotJpeg, encode_frame, encode_frame_base64
from .messages import Acked, DescribeStream, EndStream, FramesMoved, SessionEnding, StreamEnded, WatchFrames
from .outlet import Outlet
from .request import ViewRequest, started_line, stopped_line, view_error_line
from .source import FrameSource, SourceFailed, SourceFrame, SourceGone, SourceSettings
from .stepdown import DEFAULT_TIMINGS, Decision, LevelChanged, Stalled, StreamPolicy, Timings

__all__ = ["ASK_TIMEOUT", "DRAIN_TIMEOUT", "LiveViewStream"]

log = logging.getLogger("browx_actors.streams")

#: How long the stream waits for its session to name a frame source (the session may be
#: in the middle of a long tool call: its mailbox is served in order).
ASK_TIMEOUT = 60.0
#: How long an ending stream waits for its outlet to write what it holds.
DRAIN_TIMEOUT = 5.0
#: Sources in a row that end as gone without ever producing before the page counts as closed.
GONE_IN_A_ROW = 3

_OPEN = "open"  # no end requested yet


class _Started:
    """The ``task_status`` a source is run with: its ``started()`` announces the view."""

    def __init__(self, stream: LiveViewStream) -> None:
        self._stream = stream

    def started(self, value: None = None) -> None:
        self._stream._announce()


class LiveViewStream(Actor):
    mailbox_size = 16

    def __init__(self, request: ViewRequest, session: ActorRef, outlet: Outlet, *, seqs: Iterator[int],
                 supervisor: ActorRef | None = None, timings: Timings = DEFAULT_TIMINGS) -> None:
        super().__init__(f"view:{request.session}")
        self.request = request
        self.outlet = outlet
        self._session = session
        self._supervisor = supervisor
        self._seqs = seqs
        self.started_at = trio.current_time()
        self.policy = StreamPolicy(request.max_fps, request.max_width, now=self.started_at, timings=timings)
        self.source: FrameSource | None = None
        #: The reason an end was asked for (:data:`_OPEN` until then; None: replaced, no line).
        self._end_reason: str | None = _OPEN
        self._main = trio.CancelScope()  # cancelled to end the stream; may be cancelled before it is entered
        self._source_scope: trio.CancelScope | None = None
        self._timer: trio.CancelScope | None = None
        self._moved = False
        self._announced = False
        self._finishing = False
        self._finished = trio.Event()
        self._gone_in_a_row = 0
        self.frame_size: tuple[int, int] | None = None
        self.level_restarts = 0
        self.follows = 0

    # -- the actor ------------------------------------------------------------------------

    async def on_start(self) -> None:
        self.nursery.start_soon(self._run)
        self.nursery.start_soon(self._keep_time)

    async def handle(self, msg: object) -> object:
        if isinstance(msg, Acked):
            now = trio.current_time()
            self.policy.acked(msg.seq, now)
            self._after_policy(now)
        elif isinstance(msg, EndStream):
            self._end(msg.reason)
        elif isinstance(msg, FramesMoved):
            self._moved = True
            self._restart_source()
        elif isinstance(msg, SessionEnding):
            self._end("session-closed")
        elif isinstance(msg, DescribeStream):
            return self.describe()
        else:
            raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")
        return None

    async def on_stop(self) -> None:
        # Stopped by the supervisor without being told why: the server is shutting the
        # operator channel down with everything else.
        await self._finish("channel-closed")

    # -- the stream's life ----------------------------------------------------------------

    async def _run(self) -> None:
        try:
            reason = await self._stream()
            await self._finish(reason)
        finally:
            self.outlet.close()  # even if a bug in the source crashes the stream

    async def _stream(self) -> str | None:
        """Run the view; the ``view.stopped`` reason it ended with (None: no line to send)."""
        with self._main:
            first = await self._ask()
            if isinstance(first, str):
                self._refuse(first)
                return None
            source = first
            while True:
                if self._moved:
                    self._moved = False
                    self.follows += 1
                    answer = await self._ask()
                    if isinstance(answer, str):
                        return _REASONS_AFTER_START[answer]
                    source = answer
                outcome = await self._produce(source)
                if outcome is None:
                    continue  # a level change or a move: run again
                if not self._announced:
                    self._refuse("failed")
                    return None
                if outcome == "failed":
                    return "source-error"
                self._gone_in_a_row += 1
                if self._gone_in_a_row >= GONE_IN_A_ROW:
                    return "page-closed"
                self._moved = True  # the page went away: the session says where to look now
        return None if self._end_reason == _OPEN else self._end_reason

    async def _ask(self) -> FrameSource | str:
        """The session's frame source now, or why there is none (gone, no-page, unsupported, failed)."""
        try:
            source: FrameSource | None = await self._session.call(WatchFrames(self.ref), timeout=ASK_TIMEOUT)
        except ActorUnavailable:
            return "gone"
        except ToolError as err:
            return "no-page" if err.code == "tab-closed" else "failed"
        if source is None:
            return "unsupported"
        self.source = source
        return source

    async def _produce(self, source: FrameSource) -> str | None:
        """Run ``source`` once: None when restarted on purpose, else "gone" or "failed"."""
        with trio.CancelScope() as self._source_scope:
            level = self.policy.settings
            settings = SourceSettings(max_width=level.width, quality=self.request.quality, fps=level.fps)
            try:
                await source.run(settings, self._deliver, task_status=_Started(self))
            except SourceGone as exc:
                log.info("live view of %r: the source's page went away (%s)", self.request.session, exc)
                return "gone"
            except SourceFailed as exc:
                log.warning("live view of %r: the source failed: %s", self.request.session, exc)
                return "failed"
            return "gone"  # a source that stops by itself has nothing left to show
        self._source_scope = None
        return None

    def _refuse(self, why: str) -> None:
        """The view could not start: one error line, no ``view.started``, no ``view.stopped``."""
        code, message = _REFUSALS[why]
        self.outlet.send_line(view_error_line(code, message, session=self.request.session))
        log.info("live view of %r refused: %s", self.request.session, code)

    def _announce(self) -> None:
        self._gone_in_a_row = 0
        if not self._announced:
            self._announced = True
            self.outlet.send_line(started_line(self.request))

    def _end(self, reason: str | None) -> None:
        """End the stream with ``reason`` (the first reason asked for wins)."""
        if self._end_reason == _OPEN:
            self._end_reason = reason
        self._main.cancel()

    def _restart_source(self) -> None:
        if self._source_scope is not None:
            self._source_scope.cancel()

    async def _finish(self, reason: str | None) -> None:
        """Stop producing, say why (once), let the outlet write what it holds, and stop."""
        if self._finishing:
            await self._finished.wait()
            return
        self._finishing = True
        self._end(reason)  # stops the source, if it still runs
        reason = self._end_reason
        if reason is not None and self._announced:
            self.outlet.send_line(stopped_line(self.request.session, reason))
        self.outlet.close()
        with trio.move_on_after(DRAIN_TIMEOUT) as drain:
            drain.shield = True
            await self.outlet.done.wait()
            if self._supervisor is not None:
                with contextlib.suppress(ActorUnavailable):
                    await self._supervisor.cast(StreamEnded(self.request.session, reason or "replaced",
                                                            self.describe()))
        # The operator's record of the view (never a frame): a harness running the server
        # as a subprocess reads its numbers here, since no tool may report a view.
        log.info("live view of %r ended: %s; statistics %s", self.request.session, reason or "replaced",
                 json.dumps(self.describe(), separators=(",", ":")))
        self._finished.set()
        self.stop()

    # -- frames and time ------------------------------------------------------------------

    def _deliver(self, frame: SourceFrame) -> float:
        """The source's frame: send it, skip it or drop it now; when the next one is wanted."""
        if self._finishing or self._end_reason != _OPEN:
            return math.inf
        if not self._session.alive:  # it crashed without a word (a closing session says so)
            self._end("session-closed")
            return math.inf
        self._announce()
        now = trio.current_time()
        if self.policy.offer(now, backed_up=self.outlet.backed_up) is Decision.SEND:
            self._send(frame, now)
        self._after_policy(now)
        return self.policy.next_due()

    def _send(self, frame: SourceFrame, now: float) -> None:
        seq = next(self._seqs)
        session = self.request.session
        try:
            if isinstance(frame.jpeg, str):
                encoded = encode_frame_base64(session, seq, frame.at, frame.jpeg)
            else:
                encoded = encode_frame(session, seq, frame.at, frame.jpeg)
        except FrameTooLarge:
            self.policy.too_large(now)
            return
        except NotJpeg as exc:
            log.warning("live view of %r: the source produced a frame that is not a JPEG (%s)", session, exc)
            self._end("source-error")
            return
        if not self.outlet.offer_frame(encoded.wire, frame.arrived):
            self._end("channel-down")  # backed up was checked: the outlet is closed, its link gone
            return
        self.policy.sent(seq, now)
        self.frame_size = (encoded.width, encoded.height)

    def _after_policy(self, now: float) -> None:
        """Act on what the policy decided, and sleep until its next deadline."""
        for event in self.policy.tick(now):
            if isinstance(event, LevelChanged):
                self.level_restarts += 1
                log.info("live view of %r: level %d -> %d (%g fps, %d px)", self.request.session,
                         event.previous, event.level, event.settings.fps, event.settings.width)
                self._restart_source()
            elif isinstance(event, Stalled):
                self._end("stalled")
        if self._timer is not None:
            self._timer.deadline = self.policy.next_deadline()

    async def _keep_time(self) -> None:
        while True:
            with trio.CancelScope(deadline=self.policy.next_deadline()) as self._timer:
                await trio.sleep_forever()
            self._after_policy(trio.current_time())

    # -- statistics -----------------------------------------------------------------------

    def describe(self) -> JsonObject:
        """What the stream is doing, in numbers; never a frame or anything from the page."""
        counters = self.policy.counters()
        request = self.request
        return {
            "session": request.session,
            "actor": self.name,
            "link": self.outlet.generation,
            "requested": {"maxFps": request.max_fps, "maxWidth": request.max_width, "quality": request.quality},
            "level": counters.level,
            "fps": round(counters.fps, 3),
            "width": counters.width,
            "frameSize": None if self.frame_size is None else list(self.frame_size),
            "frames": {"offered": counters.offered, "paced": counters.paced, "sent": counters.sent,
                       "acked": counters.acked, "dropped": counters.dropped, "lost": counters.lost},
            "rttMs": None if counters.rtt_median is None else round(counters.rtt_median * 1000, 3),
            "source": None if self.source is None else self.source.description,
            "restarts": {"level": self.level_restarts, "follow": self.follows},
            "write": self.outlet.statistics(),
            "ageSeconds": round(trio.current_time() - self.started_at, 3),
        }


#: Why a view could not start, as the daemon hears it.
_REFUSALS = {
    "gone": ("unknown-session", "no open session by that name (a view never opens one)"),
    "unsupported": ("view-unsupported", "the session's engine has no frame source"),
    "no-page": ("view-failed", "the session has no open page to show"),
    "failed": ("view-failed", "the frame source could not start"),
}

#: Why a running view ended when the session could not name a source again.
_REASONS_AFTER_START = {
    "gone": "session-closed",
    "no-page": "page-closed",
    "unsupported": "source-error",
    "failed": "source-error",
}
