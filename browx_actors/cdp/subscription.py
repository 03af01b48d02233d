"""One subscriber's bounded stream of CDP events, fed by the connection's reader.

The reader never waits on a subscriber: :meth:`CdpSubscription._offer` enqueues without
blocking or counts a drop, and the next delivered event carries ``dropped_before`` so
the gap shows in the stream. When the connection or session ends, the stream delivers
what it holds and then raises the loss (see :mod:`.routing` for the policy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import TracebackType

import attrs
import trio

from .protocol import CdpEvent, CdpFailure

__all__ = ["CdpSubscription", "Ending"]

Ending = Callable[[], CdpFailure]


class CdpSubscription:
    """A bounded stream of events for one session (or the browser, ``session_id=None``).

    Registered as soon as it is created, so no event slips by between subscribing and
    starting to iterate. Use it as ``async with conn.subscribe(...) as events:`` and
    ``async for event in events``; leaving the block unsubscribes.
    """

    def __init__(
        self,
        unsubscribe: Callable[[CdpSubscription], None],
        session_id: str | None,
        methods: Iterable[str] | None,
        buffer: int,
    ) -> None:
        if buffer < 1:
            raise ValueError(f"buffer must be at least 1, got {buffer}")
        self.session_id = session_id
        self.methods: frozenset[str] | None = None if methods is None else frozenset(methods)
        self.buffer = buffer
        self._unsubscribe = unsubscribe
        send: trio.MemorySendChannel[CdpEvent]
        receive: trio.MemoryReceiveChannel[CdpEvent]
        send, receive = trio.open_memory_channel(buffer)
        self._send = send
        self._receive = receive
        self._gap = 0
        self._dropped = 0
        self._ending: Ending | None = None

    @property
    def dropped(self) -> int:
        """Events this subscription lost because its buffer was full."""
        return self._dropped

    def wants(self, method: str) -> bool:
        return self.methods is None or method in self.methods

    def _offer(self, event: CdpEvent) -> bool:
        """Called by the reader: enqueue without waiting, or count a drop."""
        if self._gap:
            event = attrs.evolve(event, dropped_before=self._gap)
        try:
            self._send.send_nowait(event)
        except trio.WouldBlock:
            self._gap += 1
            self._dropped += 1
            return False
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        self._gap = 0
        return True

    def _finish(self, ending: Ending | None) -> None:
        """End the stream; buffered events are still delivered, then ``ending()`` raises."""
        if self._ending is None:
            self._ending = ending
        self._send.close()

    def close(self) -> None:
        """Unsubscribe. Iteration stops after what is already buffered."""
        self._unsubscribe(self)
        self._finish(None)

    async def receive(self) -> CdpEvent:
        """The next event. Raises the loss error, or :exc:`trio.EndOfChannel` once closed."""
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            if self._ending is not None:
                raise self._ending() from None
            raise

    def receive_nowait(self) -> CdpEvent:
        """A buffered event, or :exc:`trio.WouldBlock`; ends like :meth:`receive`."""
        try:
            return self._receive.receive_nowait()
        except trio.EndOfChannel:
            if self._ending is not None:
                raise self._ending() from None
            raise

    def __aiter__(self) -> CdpSubscription:
        return self

    async def __anext__(self) -> CdpEvent:
        try:
            return await self.receive()
        except trio.EndOfChannel:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> CdpSubscription:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<CdpSubscription session={self.session_id} methods={self.methods} "
            f"buffer={self.buffer} dropped={self._dropped}>"
        )
