"""Test doubles for the live view: a scripted frame source, a session actor that hands it
out, and a wire that records what a stream's outlet writes.

- :class:`FakeSource` satisfies :class:`~browx_actors.streams.source.FrameSource`: it
  "paints" real JPEGs as wide as it is told, at a fixed rate (or as the stream asks,
  with ``paced=True``), records the settings of each run, and can be made to fail to
  start, to go away or to fail while running.
- :class:`FakeSession` is a real actor answering
  :class:`~browx_actors.streams.messages.WatchFrames` from a script (a source, None for
  an engine without frames, or a ``tab-closed`` refusal) and telling its watchers
  :class:`~browx_actors.streams.messages.FramesMoved` / ``SessionEnding`` on demand.
- :class:`Wire` is an outlet's ``write``: it parses every line, stamps it with the
  (mock) time, can hold writes (a daemon that stopped reading) or fail them (a dropped
  socket), and can play a daemon that acks each whole frame after a delay.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import trio
from PIL import Image

from browx_actors.errors import ToolError
from browx_actors.kernel.actor import Actor
from browx_actors.kernel.actor_ref import ActorRef
from browx_actors.streams.messages import Acked, FramesMoved, SessionEnding, WatchFrames
from browx_actors.streams.source import Deliver, SourceFailed, SourceFrame, SourceGone, SourceSettings

AT = 1_790_000_000_000


@functools.cache
def jpeg(width: int = 960, busy: bool = False) -> bytes:
    """A real JPEG ``width`` wide (16:9); ``busy`` makes it noise, several parts large."""
    height = max(1, width * 9 // 16)
    pixels = np.full((height, width, 3), 200, np.uint8)
    if busy:
        pixels[:] = np.random.default_rng(width).integers(0, 256, (height, width, 3), np.uint8)
    else:
        pixels[: height // 3, : width // 3] = (30, 90, 200)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=90)
    return out.getvalue()


class FakeSource:
    """A page that paints every ``interval`` seconds (see the module docstring)."""

    def __init__(self, interval: float = 1 / 32, *, name: str = "fake page", paced: bool = False,
                 busy: bool = False, as_bytes: bool = False) -> None:
        self.interval = interval
        self.description = name
        self.paced = paced
        self.busy = busy
        self.as_bytes = as_bytes
        self.runs: list[SourceSettings] = []
        self.delivered = 0
        self.running = False
        self.fail_start: Exception | None = None
        self._ending: Exception | None = None
        self._end = trio.Event()

    def end_with(self, error: Exception) -> None:
        """Make the running source raise ``error`` (SourceGone, SourceFailed)."""
        self._ending = error
        self._end.set()

    async def run(self, settings: SourceSettings, deliver: Deliver, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        self.runs.append(settings)
        if self.fail_start is not None:
            raise self.fail_start
        self.running = True
        try:
            task_status.started()
            while True:
                if self._ending is not None:
                    error, self._ending, self._end = self._ending, None, trio.Event()
                    raise error
                image = jpeg(settings.max_width, self.busy)
                data: bytes | str = image if self.as_bytes else _b64(image)
                wanted = deliver(SourceFrame(data, AT + self.delivered, trio.current_time()))
                self.delivered += 1
                wait = max(self.interval, wanted - trio.current_time()) if self.paced else self.interval
                with trio.move_on_after(wait):
                    await self._end.wait()
        finally:
            self.running = False


@functools.cache
def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


class FakeSession(Actor):
    """Answers WatchFrames from ``answers`` (one per ask; the last repeats)."""

    def __init__(self, *answers: Any) -> None:
        super().__init__("session:fake")
        self.answers = list(answers)
        self.asks = 0
        self.watchers: list[ActorRef] = []

    async def handle(self, msg: Any) -> Any:
        if not isinstance(msg, WatchFrames):
            raise TypeError(type(msg).__name__)
        self.asks += 1
        if msg.stream not in self.watchers:
            self.watchers.append(msg.stream)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def tell(self, msg: FramesMoved | SessionEnding) -> None:
        for ref in self.watchers:
            if ref.alive:
                await ref.cast(msg)


NO_PAGE = ToolError("tab-closed", "the session has no open page")


class Wire:
    """An outlet's ``write``: every line parsed and stamped (see the module docstring)."""

    def __init__(self) -> None:
        self.lines: list[tuple[float, dict[str, Any]]] = []
        self.hold: trio.Event | None = None
        self.broken = False
        self.writes = 0
        self._changed = trio.Event()

    async def write(self, data: bytes) -> bool:
        if self.hold is not None:
            await self.hold.wait()
        if self.broken:
            return False
        self.writes += 1
        now = trio.current_time()
        for raw in data.splitlines():
            self.lines.append((now, json.loads(raw)))
        self._changed.set()
        self._changed = trio.Event()
        return True

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [line for _, line in self.lines if line["type"] == kind]

    def frames(self) -> list[tuple[float, dict[str, Any]]]:
        """(written at, the frame's last part) of every whole frame."""
        return [(at, line) for at, line in self.lines if line["type"] == "frame" and line["part"] == line["parts"] - 1]

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool], after: int = 0) -> dict[str, Any]:
        while True:
            for _, line in self.lines[after:]:
                if predicate(line):
                    return line
            await self._changed.wait()

    async def ack(self, stream: ActorRef, delay: Callable[[dict[str, Any]], float | None]) -> None:
        """Play a daemon: ack each whole frame ``delay(frame)`` seconds after it was written (None: never)."""
        seen = 0
        async with trio.open_nursery() as nursery:
            while True:
                frames = self.frames()
                for _, frame in frames[seen:]:
                    wait = delay(frame)
                    if wait is not None:
                        nursery.start_soon(_ack_later, stream, frame["seq"], wait)
                seen = len(frames)
                await self._changed.wait()


async def _ack_later(stream: ActorRef, seq: int, wait: float) -> None:
    await trio.sleep(wait)
    if stream.alive:
        await stream.cast(Acked(seq))


__all__ = ["AT", "NO_PAGE", "FakeSession", "FakeSource", "SourceFailed", "SourceGone", "Wire", "jpeg"]
