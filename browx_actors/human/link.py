"""One authenticated link to the operator's daemon: its one writer, and its lines in.

Every line a link carries (prompts, endings, live-view frames) goes through
:meth:`Link.send`, one at a time, so the parts of a frame go out together and nothing
lands between them; a write that fails or stalls past ``write_timeout`` drops the link,
because part of a line may be on the socket and every later line would be glued to it.
"""

from __future__ import annotations

import logging

import trio

from ..operator_wire import LineBuffer, Oversized

__all__ = ["Link", "read_line"]

log = logging.getLogger("browx_actors.operator")

_READ_SIZE = 16 * 1024


class Link:
    """One authenticated connection. ``dead`` once it dropped; writes are serialized."""

    def __init__(self, stream: trio.abc.Stream, generation: int, write_timeout: float) -> None:
        self.stream = stream
        self.generation = generation
        self.write_timeout = write_timeout
        self.dead = False
        self.scope = trio.CancelScope()
        #: Where the link's outlet writers run: they end when the link does.
        self.nursery: trio.Nursery | None = None
        self._lock = trio.Lock()

    async def send(self, line: bytes) -> bool:
        """Write one line; a failed or stalled write drops the link (returns False)."""
        if self.dead:
            return False
        async with self._lock:
            with trio.move_on_after(self.write_timeout):
                try:
                    await self.stream.send_all(line)
                    return True
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    log.info("operator link %d: write failed: %r", self.generation, exc)
                except trio.Cancelled:
                    # Our caller's deadline cut the write: part of a line may be on the
                    # socket, and every later line would be glued to it.
                    self.drop()
                    raise
        self.drop()
        return False

    def drop(self) -> None:
        self.dead = True
        self.scope.cancel()


async def read_line(stream: trio.abc.ReceiveStream, lines: LineBuffer) -> bytes | Oversized | None:
    """The next line, an :class:`Oversized`, or None at end of stream."""
    while True:
        item = lines.next()
        if item is not None:
            return item
        data = await stream.receive_some(_READ_SIZE)
        if not data:
            return None
        lines.feed(bytes(data))
