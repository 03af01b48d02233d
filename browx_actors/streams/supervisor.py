"""The StreamSupervisor: one LiveViewStream per view, at most four at once.

It sits in the runtime tree beside the sessions (only with the live-view capability
on) and is where the operator channel sends what the daemon asks, in order:

* :class:`~.messages.StartView`: the named session must be open (``unknown-session``
  otherwise: a view never opens one); a view of a session that already has one replaces
  it (the old stream ends without a ``view.stopped``, the new one answers with its own
  ``view.started``); otherwise at most :data:`LIMIT` views run (``view-limit``). The
  stream then asks the session for its frame source itself, so a session that is busy
  with a long tool call delays only its own view.
* :class:`~.messages.StopView` ends the view with ``daemon``; :class:`~.messages.AckFrame`
  goes on to the stream; :class:`~.messages.ChannelDown` ends every stream of that link
  with ``channel-down`` (a redial resumes none: the daemon starts its views again).
* :class:`~.messages.StreamStatus` answers each stream's own description, and the last
  few that ended, for ``runtime_status``.

Each stream is a temporary child (a view that ends is not restarted); the supervisor
never reads a session's state, only asks ``find_session`` (the runtime's lookup
through the session supervisor) whether it is open. Frame numbers (``seq``) go on
across a replacement, so a late ack for the old stream cannot be taken for a frame of
the new one.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator

import attrs
import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..kernel.actor import Later
from ..kernel.actor_ref import ActorRef, ActorUnavailable
from ..kernel.supervision import ChildSpec, EventLog, Restart, Strategy
from ..kernel.supervisor import Supervisor
from .messages import (
    Acked,
    AckFrame,
    ChannelDown,
    DescribeStream,
    EndStream,
    StartView,
    StopView,
    StreamEnded,
    StreamStatus,
)
from .outlet import Outlet
from .request import ViewRequest, view_error_line
from .stepdown import DEFAULT_TIMINGS, Timings
from .stream import DRAIN_TIMEOUT, LiveViewStream

__all__ = ["LIMIT", "StreamSupervisor"]

log = logging.getLogger("browx_actors.streams")

#: Streams at once.
LIMIT = 4
#: Ended streams whose final statistics the status keeps.
ENDED_KEPT = 16
#: Seconds an ending stream gets before it is cancelled (it stops its source and drains).
_STREAM_SHUTDOWN = DRAIN_TIMEOUT + 5

#: ``find_session(id)``: the session actor's ref while it is open, else None.
FindSession = Callable[[str], Awaitable[ActorRef | None]]


@attrs.define(eq=False)
class _View:
    session: str
    child_id: str
    ref: ActorRef
    generation: int


class StreamSupervisor(Supervisor):
    def __init__(self, find_session: FindSession, *, limit: int = LIMIT, timings: Timings = DEFAULT_TIMINGS,
                 events: EventLog | None = None) -> None:
        super().__init__("streams", strategy=Strategy.ONE_FOR_ONE, events=events)
        self._find_session = find_session
        self.limit = limit
        self.timings = timings
        self._views: dict[str, _View] = {}
        #: Frame numbers per (link, session): they go on across a replacement.
        self._seqs: dict[tuple[int, str], Iterator[int]] = {}
        self._ended: deque[JsonObject] = deque(maxlen=ENDED_KEPT)
        self._child_ids = itertools.count(1)
        self.refused: Counter[str] = Counter()

    async def handle(self, msg: object) -> object:
        match msg:
            case StartView(request, outlet):
                await self._start_view(request, outlet)
            case StopView(session, generation):
                view = self._running(session, generation)
                if view is not None:
                    await self._end(view, "daemon")
            case AckFrame(session, seq, generation):
                view = self._running(session, generation)
                if view is not None:
                    with contextlib.suppress(ActorUnavailable):  # it ended meanwhile: nothing to answer
                        await view.ref.cast(Acked(seq))
            case ChannelDown(generation):
                for view in [v for v in self._views.values() if v.generation <= generation]:
                    await self._end(view, "channel-down")
                self._seqs = {key: seqs for key, seqs in self._seqs.items() if key[0] > generation}
            case StreamEnded(session, reason, statistics):
                self._ended.append({"session": session, "reason": reason, **statistics})
            case StreamStatus():
                return Later.of(self._status)
            case _:
                return await super().handle(msg)
        return None

    # -- views ----------------------------------------------------------------------------

    def _running(self, session: str, generation: int) -> _View | None:
        view = self._views.get(session)
        if view is None or view.generation != generation or not view.ref.alive:
            return None
        return view

    def _alive(self) -> list[_View]:
        self._views = {session: v for session, v in self._views.items() if v.ref.alive}
        return list(self._views.values())

    async def _start_view(self, request: ViewRequest, outlet: Outlet) -> None:
        session = request.session
        try:
            session_ref = await self._find_session(session)
        except (ToolError, ActorUnavailable) as exc:
            log.warning("live view of %r: the session supervisor did not answer: %s", session, exc)
            return self._refuse(outlet, session, "view-failed", "the sessions could not be asked")
        if session_ref is None:
            return self._refuse(outlet, session, "unknown-session",
                                "no open session by that name (a view never opens one)")
        running = {v.session: v for v in self._alive()}
        if session in running:
            await self._end(running[session], None)  # replaced: its successor answers view.started
        elif len(running) >= self.limit:
            return self._refuse(outlet, session, "view-limit", f"{self.limit} streams are running already")
        seqs = self._seqs.setdefault((outlet.generation, session), itertools.count(1))
        child_id = f"view:{session}#{next(self._child_ids)}"

        def new_stream() -> LiveViewStream:
            return LiveViewStream(request, session_ref, outlet, seqs=seqs, supervisor=self.ref, timings=self.timings)

        spec = ChildSpec(child_id, new_stream, Restart.TEMPORARY, shutdown=_STREAM_SHUTDOWN,
                         meta={"session": session})
        try:
            ref = await self.start_child(spec)
        except ToolError as exc:
            log.warning("live view of %r did not start: %s", session, exc)
            return self._refuse(outlet, session, "view-failed", "the stream could not start")
        self._views[session] = _View(session, child_id, ref, outlet.generation)
        return None

    def _refuse(self, outlet: Outlet, session: str, code: str, message: str) -> None:
        self.refused[code] += 1
        outlet.send_line(view_error_line(code, message, session=session))
        outlet.close()

    async def _end(self, view: _View, reason: str | None) -> None:
        """End ``view`` with ``reason`` and wait until it has (cancelled after its grace)."""
        if self._views.get(view.session) is view:
            del self._views[view.session]
        child = self._find(view.child_id)
        with contextlib.suppress(ActorUnavailable):
            await view.ref.cast(EndStream(reason))
        if child is None:
            return
        with trio.move_on_after(child.spec.shutdown):
            await child.done.wait()
        if not child.done.is_set() and child.scope is not None:
            child.scope.cancel()
            await child.done.wait()

    async def _status(self) -> JsonObject:
        streams = []
        for view in self._alive():
            try:
                streams.append(await view.ref.call(DescribeStream(), timeout=5))
            except (ToolError, ActorUnavailable):
                continue  # it ended in the moment between
        return {"limit": self.limit, "running": len(streams), "streams": streams,
                "ended": list(self._ended), "refused": dict(self.refused)}
