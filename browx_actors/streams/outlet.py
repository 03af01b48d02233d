"""One stream's way to the operator socket: its lines in order, at most one frame at a time.

The operator channel makes an :class:`Outlet` for every ``view.start`` on a link and
runs its writer (:meth:`Outlet.run`) in that link's nursery, so a dropped link takes
every outlet's writer with it and no write is ever cut short by a stream ending. The
stream hands it lines without waiting:

* :meth:`Outlet.offer_frame` takes a frame's lines (all its parts, joined) only when
  the outlet is not *backed up*, that is when the channel has finished writing the
  stream's previous frame; otherwise it refuses and the stream drops the frame.
  Nothing waits in line behind a frame that is still being written.
* :meth:`Outlet.send_line` queues a control line (``view.started``, ``view.stopped``, an
  ``error``) after whatever the outlet already holds; these are few and never dropped.

Each write goes through ``write`` (the link's one writer: a lock around ``send_all``,
so the parts of a frame go out together and no other line lands between them). The
outlet measures what the stream cannot see from its side: how long each write took
(the wait for the lock included), how long each frame took from the source to its last
byte on the socket, whether a write is in progress now.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Awaitable, Callable

import attrs
import trio

from ..jsonsafe import JsonObject

__all__ = ["Outlet", "percentile"]

#: Writes and latencies kept for the statistics.
HISTORY = 256


@attrs.frozen
class _Line:
    data: bytes
    arrived: float | None = None  # a frame's arrival at its source; None for a control line


def percentile(values: list[float], share: float) -> float | None:
    """The ``share`` quantile of ``values`` by the nearest-rank method (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 3)


class Outlet:
    """See the module docstring. ``generation`` names the link it writes on."""

    def __init__(self, write: Callable[[bytes], Awaitable[bool]], generation: int,
                 clock: Callable[[], float] = trio.current_time) -> None:
        self._write = write
        self.generation = generation
        self._clock = clock
        self._queue: deque[_Line] = deque()
        self._frame_pending = False
        self._wake = trio.Event()
        self._closed = False
        #: Set once a write failed (the link is gone): everything after is discarded.
        self.dead = False
        #: Set when the writer has finished: closed and drained, or dead.
        self.done = trio.Event()
        self.frames_written = 0
        self.lines_written = 0
        self.bytes_written = 0
        self._writes: deque[float] = deque(maxlen=HISTORY)
        self._latencies: deque[float] = deque(maxlen=HISTORY)
        self._write_started: float | None = None

    # -- the stream's side ------------------------------------------------------------

    @property
    def backed_up(self) -> bool:
        """Is the stream's previous frame still being written (or waiting for the writer)?"""
        return self._frame_pending

    @property
    def open(self) -> bool:
        return not (self._closed or self.dead)

    def offer_frame(self, wire: bytes, arrived: float) -> bool:
        """Take a frame's lines to write now; False (take nothing) when backed up or closed."""
        if not self.open:
            return False
        if self._frame_pending:
            return False
        self._frame_pending = True
        self._queue.append(_Line(wire, arrived))
        self._wake.set()
        return True

    def send_line(self, line: bytes) -> None:
        """Queue a control line after everything before it (dropped only once closed or dead)."""
        if self.open:
            self._queue.append(_Line(line))
            self._wake.set()

    def close(self) -> None:
        """No more lines: the writer finishes what it holds, then :attr:`done` is set."""
        self._closed = True
        self._wake.set()

    # -- the channel's side -----------------------------------------------------------

    async def run(self) -> None:
        """The writer: each queued line in order, through ``write``, until closed and drained."""
        try:
            while True:
                while not self._queue:
                    if self._closed:
                        return
                    self._wake = trio.Event()
                    await self._wake.wait()
                line = self._queue[0]
                started = self._write_started = self._clock()
                written = await self._write(line.data)
                ended = self._clock()
                self._write_started = None
                self._queue.popleft()
                if not written:
                    self.dead = True
                    return
                self._writes.append(ended - started)
                self.lines_written += line.data.count(b"\n")
                self.bytes_written += len(line.data)
                if line.arrived is not None:
                    self.frames_written += 1
                    self._latencies.append(ended - line.arrived)
                    self._frame_pending = False
        finally:
            if self._queue or not self._closed:  # cancelled with its link, or a write failed
                self.dead = True
                self._queue.clear()
            self._frame_pending = False
            self.done.set()

    def statistics(self) -> JsonObject:
        """What the writes cost: counts, the write in progress, write times and frame latencies (ms)."""
        writes, latencies = list(self._writes), list(self._latencies)
        in_progress = None if self._write_started is None else self._clock() - self._write_started
        return {
            "framesWritten": self.frames_written, "linesWritten": self.lines_written,
            "bytesWritten": self.bytes_written, "backedUp": self._frame_pending,
            "writeInProgressMs": _ms(in_progress),
            "writeMs": {"median": _ms(percentile(writes, 0.5)), "p95": _ms(percentile(writes, 0.95)),
                        "max": _ms(max(writes, default=None))},
            "latencyMs": {"median": _ms(percentile(latencies, 0.5)), "p95": _ms(percentile(latencies, 0.95))},
        }
