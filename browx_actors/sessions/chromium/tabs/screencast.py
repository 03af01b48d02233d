"""Live view on the chromium engine: the screencast frame source, and who watches a session.

:class:`ChromiumScreencast` is the :class:`~browx_actors.streams.source.FrameSource` of
one tab: ``Page.startScreencast`` (JPEG at the stream's quality, at most its width) on
the tab's event session (:mod:`.tabs.wiring`: the session's own websocket, not the pool's
browser socket that carries every session's command replies, so 5 frames a second of
tens of KiB each never queue in front of another session's click), each
``Page.screencastFrame`` handed to the stream as
the base64 text CDP carries, each frame acked back to Chromium with
``Page.screencastFrameAck``, whether the daemon ever gets it or not.

When to ack is how the source paces Chromium. Chromium captures a frame on every paint
(60 a second on an animating page) until a few frames are unacked, then waits for an
ack (measured: acked at once, 60 frames a second; never acked, 4 frames and then
nothing). So the source keeps those frames' acks, and acks one frame each time the
stream is ready for its next one (:meth:`~browx_actors.streams.stepdown.StreamPolicy.next_due`):
Chromium then captures the next paint, and every frame it encodes is one the stream can
use, fresh, instead of 59 a second thrown away after their JPEG was made and carried
across the socket. Chromium takes a while to answer an ack with a frame (the next
paint, the encoding: 15 ms on an idle host, 30 to 80 ms, at times 150, on a busy one),
so the source acks that much ahead, by the median of its last few such delays, aiming
the frame at the middle of the stream's window (from a quarter interval before the
frame's slot to a quarter after). On the way out every held frame is acked, then the
screencast stopped.

:class:`LiveViewers` is the session's side of :class:`~browx_actors.streams.messages.WatchFrames`:
it answers with the source of the current tab (waiting a moment if that tab is
closing), remembers which streams watch, and tells them when the tab the tools act on
changes and when the session ends.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from collections import deque
from typing import TYPE_CHECKING

import trio

from ....cdp import CdpConnectionLost, CdpError, CdpFailure, CdpSubscription, TargetLink
from ....errors import ToolError
from ....kernel.actor_ref import ActorRef, ActorUnavailable
from ....streams.messages import FramesMoved, SessionEnding
from ....streams.source import Deliver, SourceFailed, SourceFrame, SourceGone, SourceSettings
from ....streams.stepdown import PACE_TOLERANCE

if TYPE_CHECKING:
    from ..host import SessionHost
    from .tabset import Tab

__all__ = ["ChromiumScreencast", "LiveViewers"]

#: Ack-to-frame delays the pacing takes the median of.
_DELAYS_KEPT = 8
#: How long a stream may wait for the session to learn that its current tab closed.
SETTLE_TIMEOUT = 2.0
#: Bound on the acks and the stop sent on the way out (the tab may be gone already).
_CLEANUP_TIMEOUT = 1.0


class ChromiumScreencast:
    """``Page.startScreencast`` on one tab; see the module docstring."""

    def __init__(self, cdp: TargetLink, tab_id: int) -> None:
        self._cdp = cdp
        self.tab_id = tab_id
        self.description = f"chromium screencast, tab {tab_id}"

    async def run(self, settings: SourceSettings, deliver: Deliver, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        pacing = _Pacing()
        failure: CdpFailure | None = None
        try:
            async with self._cdp.subscribe(methods=["Page.screencastFrame"], buffer=16) as events:
                await self._start(settings)
                try:
                    task_status.started()
                    async with trio.open_nursery() as nursery:
                        pacing.scope = nursery.cancel_scope
                        nursery.start_soon(self._ack_when_wanted, pacing, 1 / settings.fps)
                        failure = await self._receive(events, deliver, pacing)
                        nursery.cancel_scope.cancel()
                    failure = failure or pacing.failure
                finally:
                    await self._stop(pacing)
        except CdpFailure as exc:  # the start itself
            failure = exc
        if failure is not None:
            raise _translate(failure) from failure

    async def _receive(self, events: CdpSubscription, deliver: Deliver, pacing: _Pacing) -> CdpFailure | None:
        """Hand each frame to the stream; the failure that ended the events (None if cancelled)."""
        try:
            async for event in events:
                arrived = trio.current_time()
                params = event.params
                stamp = params.get("metadata", {}).get("timestamp")
                at = round((stamp if isinstance(stamp, (int, float)) else time.time()) * 1000)
                pacing.arrived(params["sessionId"], arrived)
                pacing.wanted_at = deliver(SourceFrame(params["data"], at, arrived))
                pacing.delivered.set()
        except CdpFailure as exc:
            return exc
        return CdpConnectionLost("the screencast's events ended")

    async def _ack_when_wanted(self, pacing: _Pacing, interval: float) -> None:
        """Ack one held frame each time the stream is about to want a frame after one was delivered."""
        try:
            while True:
                await pacing.delivered.wait()
                ack_at = pacing.ack_time(interval)
                await trio.sleep_until(ack_at)
                if trio.current_time() < pacing.ack_time(interval):
                    continue  # a frame delivered meanwhile moved the wanted time on
                pacing.delivered = trio.Event()
                if pacing.held:
                    pacing.acked_at = trio.current_time()
                    await self._cdp.send("Page.screencastFrameAck", {"sessionId": pacing.held.popleft()})
        except CdpFailure as exc:
            pacing.failure = exc
            assert pacing.scope is not None
            pacing.scope.cancel()  # the receiver stops too; run() raises what failed

    async def _start(self, settings: SourceSettings) -> None:
        params = {"format": "jpeg", "quality": settings.quality, "maxWidth": settings.max_width}
        try:
            await self._cdp.send("Page.startScreencast", params)
        except CdpError as exc:
            if "already active" not in exc.message:
                raise
            # Left running by a source that could not stop it (its stop timed out): take it over.
            await self._cdp.send("Page.stopScreencast")
            await self._cdp.send("Page.startScreencast", params)

    async def _stop(self, pacing: _Pacing) -> None:
        """Ack every frame still held, then stop: shielded, bounded (the tab may be gone)."""
        with trio.CancelScope(shield=True), trio.move_on_after(_CLEANUP_TIMEOUT):
            if self._cdp.lost:
                return
            # Written together and in order: an ack the browser refuses cannot hold the stop back.
            with contextlib.suppress(CdpFailure):
                await self._cdp.send_sequence(
                    [*(("Page.screencastFrameAck", {"sessionId": frame}) for frame in pacing.held),
                     ("Page.stopScreencast", None)])
            pacing.held.clear()


class _Pacing:
    """What the receiver and the acker share: held acks, when the stream wants a frame, and
    how long Chromium has lately taken to answer an ack with a frame."""

    def __init__(self) -> None:
        self.held: deque[int] = deque()
        self.wanted_at = -math.inf
        self.delivered = trio.Event()
        self.failure: CdpFailure | None = None
        self.scope: trio.CancelScope | None = None
        self.acked_at: float | None = None
        self._delays: deque[float] = deque(maxlen=_DELAYS_KEPT)

    def arrived(self, frame: int, now: float) -> None:
        self.held.append(frame)
        if self.acked_at is not None:
            self._delays.append(now - self.acked_at)
            self.acked_at = None

    def ack_time(self, interval: float) -> float:
        """When to ack so the next frame lands mid-window: a quarter interval after the
        wanted time, less the browser's recent delay (at most half an interval)."""
        lead = statistics.median(self._delays) if self._delays else 0.0
        return self.wanted_at + PACE_TOLERANCE * interval - min(lead, interval / 2)


def _translate(failure: CdpFailure) -> Exception:
    """A lost session or connection means the page went away; anything else is a failure."""
    if isinstance(failure, CdpConnectionLost):
        return SourceGone(str(failure))
    return SourceFailed(str(failure))


class LiveViewers:
    """The live-view streams watching one chromium session (its side of ``WatchFrames``)."""

    def __init__(self, session: SessionHost) -> None:
        self._session = session
        self._streams: list[ActorRef] = []
        self._shown: Tab | None = None

    async def watch(self, stream: ActorRef) -> ChromiumScreencast:
        """The current tab's source; ``tab-closed`` when the session has no page open."""
        self._streams = [ref for ref in self._streams if ref.alive and ref is not stream] + [stream]
        session = self._session
        tab = session.tabs.current
        if tab is not None and tab.events is not None and tab.events.lost:
            # The tab is closing and Playwright has not said so yet: wait for the tab set.
            await session.pw(session.page_moved.wait_until, lambda: session.tabs.current is not tab,
                             SETTLE_TIMEOUT)
        if session.tabs.current is None:
            raise ToolError("tab-closed", "the session has no open page")
        await session.tab_lifecycle.attach_current()
        tab = session.tabs.current
        if tab is None or tab.events is None or tab.events.lost:
            raise ToolError("tab-closed", "the session has no open page")
        self._shown = tab
        return ChromiumScreencast(tab.events, tab.id)

    def check_current(self) -> None:
        """After a tool call: if the tools now act on another tab, the watchers follow it."""
        current = self._session.tabs.current
        if self._streams and current is not self._shown:
            self._shown = current
            for ref in self._watching():
                self._session.nursery.start_soon(_tell, ref, FramesMoved())

    async def session_ending(self) -> None:
        """The session closes: every watcher ends with ``session-closed``."""
        with trio.move_on_after(_CLEANUP_TIMEOUT):
            for ref in self._watching():
                await _tell(ref, SessionEnding())

    def _watching(self) -> list[ActorRef]:
        self._streams = [ref for ref in self._streams if ref.alive]
        return list(self._streams)


async def _tell(ref: ActorRef, msg: object) -> None:
    with contextlib.suppress(ActorUnavailable):
        await ref.cast(msg)
