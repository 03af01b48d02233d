"""The daemon's Trio part: the listening socket and one server connection at a time.

:class:`Daemon` listens (the server dials), proves itself with the hello, then moves
lines: prompts to the terminal and answers back, frames joined from their parts, handed
on (``on_frame``, the frames folder) and only then acked, as its ack policy says. The
protocol logic lives in :mod:`.prompts` and :mod:`.views`; this module only moves lines.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from ..jsonsafe import JsonObject, JsonValue
from ..operator_wire import (
    MAX_LINE,
    LineBuffer,
    LineTooLong,
    Message,
    Oversized,
    WireError,
    encode,
    parse_line,
)
from ..streams.framing import BadPart, ReceivedFrame
from .prompts import AnswerError, PromptBook, describe_prompt, printable
from .views import AckPolicy, ViewTrack, ack_after, frame_folder, write_frame

__all__ = ["Daemon", "DaemonError", "claim_socket_path", "run_daemon"]


#: Why a ``--view`` is asked for again: the session is not open (yet), or it or its page went away.
_RETRY_WHEN = frozenset({"unknown-session", "session-closed", "page-closed"})


class DaemonError(Exception):
    """The daemon cannot start (the socket path is taken)."""


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.define(eq=False)
class Daemon:
    """The daemon; :meth:`run` listens and serves one server connection at a time."""

    socket_path: str
    token: str = attrs.field(repr=False)
    frames_dir: Path | None = attrs.field(default=None, converter=attrs.converters.optional(Path))
    numbered: bool = False  # keep every frame as <seq>.jpg too
    views: tuple[str, ...] = attrs.field(default=(), converter=_strings)  # view.start for each, once linked
    view_options: JsonObject = attrs.field(factory=dict, converter=dict)  # maxFps, maxWidth, quality
    ack_delay: float = 0.0
    ack_policy: AckPolicy = attrs.field(  # wins over ack_delay
        default=attrs.Factory(lambda self: ack_after(self.ack_delay), takes_self=True))
    terminal: trio.abc.ReceiveChannel[str] | None = None  # the operator's typed lines
    out: Callable[[str], None] = attrs.field(default=lambda text: print(text, flush=True))
    on_line: Callable[[JsonObject], None] | None = None  # every line the server sends
    on_frame: Callable[[ReceivedFrame], None] | None = None  # every frame, before it is written
    report_every: float = 5.0
    hello_timeout: float = 10.0
    #: Seconds before asking again for a ``views`` session that is not open yet or whose
    #: page or session went away (None: ask once).
    retry_views: float | None = 2.0
    links: int = attrs.field(init=False, default=0)
    tracks: dict[str, ViewTrack] = attrs.field(init=False, factory=dict)
    prompts: PromptBook = attrs.field(init=False, factory=PromptBook)
    _stream: trio.abc.Stream | None = attrs.field(init=False, default=None)
    _send_lock: trio.Lock = attrs.field(init=False, factory=trio.Lock)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen (started once the socket accepts), then serve each connection in turn."""
        listener = await _listen(self.socket_path)
        async with listener, trio.open_nursery() as nursery:
            if self.terminal is not None:
                nursery.start_soon(self.answer_from, self.terminal)
            self._out(f"listening on {self.socket_path}")
            task_status.started()
            while True:
                await self.serve(await listener.accept())

    async def serve(self, stream: trio.abc.Stream) -> None:
        """Run one connection from the server until it drops."""
        lines = LineBuffer(MAX_LINE)
        async with stream:
            self._stream = stream
            try:
                first = None
                if await self._send(encode("hello", token=self.token)):
                    with trio.move_on_after(self.hello_timeout):
                        first = await _read_message(stream, lines)
                if not isinstance(first, Message) or first.type != "ready":
                    self._out(f"the server refused the hello: {_summary(first)}")
                    return
                self.links += 1
                self._out(f"linked to {first.body.get('server', 'the server')}")
                self._notify(first)
                async with trio.open_nursery() as nursery:  # ack timers and the fps report
                    nursery.start_soon(self._report_fps)
                    for session in self.views:
                        await self.start_view(session)
                    await self._read_loop(stream, lines, nursery)
                    nursery.cancel_scope.cancel()
            finally:
                self._stream = None
                self.prompts = PromptBook()
                self.tracks.clear()
        self._out("the server's connection is gone")

    # -- acting on the connection -------------------------------------------------------------

    async def send(self, message_type: str, **fields: JsonValue) -> bool:
        """Send one line; False when no server is linked or the write failed."""
        return await self._send(encode(message_type, **fields))

    async def start_view(self, session: str, **options: JsonValue) -> bool:
        return await self.send("view.start", session=session, **{**self.view_options, **options})

    async def stop_view(self, session: str) -> bool:
        return await self.send("view.stop", session=session)

    async def answer_from(self, terminal: trio.abc.ReceiveChannel[str]) -> None:
        """Answer the oldest open prompt with each typed line (:meth:`run` does, given ``terminal``)."""
        async for text in terminal:
            try:
                kind, fields = self.prompts.answer(text)
                line = encode(kind, **fields)
            except AnswerError as exc:
                self._out(str(exc))
                continue
            except LineTooLong:
                self._out("that answer does not fit in one line")
                continue
            if not await self._send(line):
                self._out("no server is linked: the answer was not sent")

    async def drop(self) -> None:
        """Close the connection from the daemon's side, as a crashing daemon would."""
        if self._stream is not None:
            await self._stream.aclose()

    # -- inside -------------------------------------------------------------------------------

    def _out(self, text: str) -> None:
        self.out(printable(text))

    async def _send(self, line: bytes) -> bool:
        async with self._send_lock:
            stream = self._stream
            if stream is None:
                return False
            try:
                await stream.send_all(line)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return False
            return True

    async def _read_loop(self, stream: trio.abc.Stream, lines: LineBuffer, nursery: trio.Nursery) -> None:
        while True:
            try:
                message = await _read_message(stream, lines)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return
            if message is None:
                return
            if not isinstance(message, Message):
                self._out(f"unreadable line from the server: {_summary(message)}")
                continue
            self._notify(message)
            await self._on_message(message, nursery)

    def _notify(self, message: Message) -> None:
        if self.on_line is not None:
            self.on_line(message.body)

    async def _on_message(self, message: Message, nursery: trio.Nursery) -> None:
        body = message.body
        session = body.get("session")
        tag = f"[{session}]"
        if message.type == "human.prompt":
            if self.prompts.add(body):
                self._out(describe_prompt(body))
        elif message.type == "human.ended":
            if self.prompts.end(body.get("ticket")):
                self._out(f"prompt {body.get('ticket')} ended: {body.get('reason')}")
                if (waiting := self.prompts.current) is not None:
                    self._out(describe_prompt(waiting))
        elif message.type == "frame" and isinstance(session, str):
            await self._on_frame(session, body, nursery)
        elif message.type == "view.started" and isinstance(session, str):
            self.tracks[session] = ViewTrack(session, trio.current_time(), body.get("maxFps"))
            self._out(f"{tag} view started: {body.get('maxWidth')} px, {body.get('maxFps')} fps, "
                      f"quality {body.get('quality')}")
        elif message.type == "view.stopped":
            if isinstance(session, str):
                self.tracks.pop(session, None)
            self._out(f"{tag} view stopped: {body.get('reason')}")
            self._retry_view(session, body.get("reason"), nursery)
        elif message.type == "error":
            about = f" {tag}" if session is not None else ""
            self._out(f"server error{about} {body.get('code')}: {body.get('error')}")
            self._retry_view(session, body.get("code"), nursery)

    def _retry_view(self, session: object, why: object, nursery: trio.Nursery) -> None:
        """A ``--view`` session that is not open yet (or has just gone) is asked for again later:
        the agent opens sessions when it likes, and a view never opens one."""
        if self.retry_views is not None and session in self.views and why in _RETRY_WHEN:
            nursery.start_soon(self._ask_again, session, self.retry_views)

    async def _ask_again(self, session: str, delay: float) -> None:
        await trio.sleep(delay)
        await self.start_view(session)

    async def _on_frame(self, session: str, body: Mapping[str, JsonValue], nursery: trio.Nursery) -> None:
        track = self.tracks.get(session)
        if track is None:
            track = self.tracks[session] = ViewTrack(session, trio.current_time())
        try:
            frame = track.reassembler.feed(body)
        except BadPart as exc:
            self._out(f"[{session}] bad frame part: {exc}")
            return
        if frame is None:
            return
        if (note := track.delivered(frame)) is not None:
            self._out(f"[{session}] {note}")
        if self.on_frame is not None:
            self.on_frame(frame)
        if self.frames_dir is not None:
            folder = frame_folder(self.frames_dir, session)
            try:
                await trio.to_thread.run_sync(write_frame, folder, frame, self.numbered)
            except OSError as exc:
                self._out(f"[{session}] frame {frame.seq} not written, not acked: {exc}")
                return
        delay = self.ack_policy(frame)
        if delay is not None:
            nursery.start_soon(self._ack, frame, delay)

    async def _ack(self, frame: ReceivedFrame, delay: float) -> None:
        if delay > 0:
            await trio.sleep(delay)
        await self.send("frame.ack", session=frame.session, seq=frame.seq)

    async def _report_fps(self) -> None:
        while True:
            await trio.sleep(self.report_every)
            now = trio.current_time()
            for track in list(self.tracks.values()):
                asked = "" if track.requested_fps is None else f" (asked {track.requested_fps})"
                self._out(f"[{track.session}] {track.fps(now):.1f} fps delivered{asked}")


async def _read_message(stream: trio.abc.ReceiveStream, lines: LineBuffer) -> Message | WireError | Oversized | None:
    """The next line, parsed; None at the end of the stream."""
    while (item := lines.next()) is None:
        data = await stream.receive_some(64 * 1024)
        if not data:
            return None
        lines.feed(bytes(data))
    return item if isinstance(item, Oversized) else parse_line(item)


def _summary(item: Message | WireError | Oversized | None) -> str:
    if isinstance(item, Message):
        return f"{item.type} {item.body.get('code', '')}"
    if isinstance(item, WireError):
        return item.message
    return "no answer" if item is None else "a line over 64 KiB"


def claim_socket_path(path: str) -> None:
    """Remove a stale socket file at ``path``; :class:`DaemonError` for a live socket or another file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise DaemonError(f"{path} exists and is not a socket")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
        except (ConnectionRefusedError, FileNotFoundError):
            os.unlink(path)  # stale: nobody listens on it
            return
    raise DaemonError(f"a daemon is already listening on {path}")


async def _listen(path: str) -> trio.SocketListener:
    """A private listening socket at ``path``."""
    claim_socket_path(path)
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await sock.bind(path)
    os.chmod(path, 0o600)
    sock.listen(4)
    return trio.SocketListener(sock)


# Any: options are the Daemon's other keyword arguments, passed on as they are.
async def run_daemon(socket_path: str, token: str, *, frames_dir: Path | str | None = None,
                     views: Iterable[str] = (), ack_delay: float = 0.0,
                     task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED, **options: Any) -> None:
    """Run a :class:`Daemon` until cancelled; ``options`` are its other keyword arguments."""
    daemon = Daemon(socket_path, token, frames_dir=frames_dir, views=views, ack_delay=ack_delay, **options)
    await daemon.run(task_status=task_status)
