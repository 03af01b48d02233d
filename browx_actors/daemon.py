"""The reference host daemon: what a user runs to try the operator channel and live view.

    browx-actors daemon --socket PATH --token T [--frames DIR] [--view SESSION ...]

It is the other end of ``docs/operator-channel.md``. It listens on the Unix socket
(the server dials), proves itself with the hello, shows each ``human.prompt`` on its
terminal and sends back what the operator types, asks for a view of each ``--view``
session once linked, joins each frame's parts, hands the frame on (``latest.jpg`` in
a folder per session under ``--frames``, written then renamed so a viewer never reads
half a file; numbered files too with ``--numbered``), and only then acks it. It
prints each stream's level changes (a frame of a new width) and its delivered frame
rate every few seconds.

Tests and the chaos and benchmark harness drive it too, so it is scriptable:
``ack_policy`` decides per frame when to ack, or never; ``on_line`` sees every line the
server sends and ``on_frame`` every frame handed on; ``terminal`` is any channel of
typed lines; :meth:`Daemon.send`, :meth:`~Daemon.start_view`, :meth:`~Daemon.stop_view`
and :meth:`~Daemon.drop` act on the live connection, and :meth:`~Daemon.serve` runs one
connection over any Trio stream. The protocol logic (joining parts, reading answers,
the fps meter) is pure and tested directly; the Trio part only moves lines.

The socket file is made private (0600): the daemon tells its token to whoever connects.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import socket
import stat
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import attrs
import trio

from .human.operator_wire import (
    MAX_LINE,
    LineBuffer,
    LineTooLong,
    Message,
    Oversized,
    WireError,
    encode,
    parse_line,
)
from .streams.framing import BadPart, Reassembler, ReceivedFrame

__all__ = ["AckPolicy", "AnswerError", "Daemon", "DaemonError", "PromptBook", "ViewTrack", "ack_after",
           "claim_socket_path", "describe_prompt", "frame_folder", "main", "never_ack", "parse_answer",
           "printable", "run_daemon", "write_frame"]

#: Seconds to wait before acking a frame, or None never to ack it.
AckPolicy = Callable[[ReceivedFrame], float | None]


class DaemonError(Exception):
    """The daemon cannot start (the socket path is taken)."""


# -- pure: acks and views ----------------------------------------------------------


def ack_after(seconds: float) -> AckPolicy:
    """Ack every frame ``seconds`` after it was handed on (0: at once)."""
    return lambda frame: seconds


def never_ack(frame: ReceivedFrame) -> float | None:
    return None


@attrs.define
class ViewTrack:
    """What the daemon knows of one session's stream, and its delivered-fps meter."""

    session: str
    since: float  # start of the current fps period
    requested_fps: object = None
    reassembler: Reassembler = attrs.Factory(Reassembler)
    size: tuple[int, int] | None = None
    frames: int = 0
    period_frames: int = 0

    def delivered(self, frame: ReceivedFrame) -> str | None:
        """Count a frame; a note when it is the first or its width changed (a new level)."""
        self.frames += 1
        self.period_frames += 1
        previous, self.size = self.size, (frame.width, frame.height)
        if previous is None:
            return f"first frame {frame.width}x{frame.height}"
        if previous[0] != frame.width:
            return f"level change {previous[0]}x{previous[1]} -> {frame.width}x{frame.height}"
        return None

    def fps(self, now: float) -> float:
        """Frames per second delivered since the last call (or the start); starts the next period."""
        elapsed, frames = now - self.since, self.period_frames
        self.since, self.period_frames = now, 0
        return frames / elapsed if elapsed > 0 else 0.0


# -- pure: prompts and answers --------------------------------------------------------------


class AnswerError(ValueError):
    """What the operator typed does not answer the prompt; the message says what would."""


_HOW = {
    "acknowledge": "press Enter (or type a note)",
    "confirm": "answer y or n",
    "choose": "answer with the number of a choice",
    "input": "type the text",
}


def describe_prompt(prompt: Mapping[str, Any]) -> str:
    """A prompt as the terminal shows it: session, kind, text, numbered choices, ticket."""
    kind = prompt.get("kind")
    text = str(prompt.get("prompt")).replace("\n", "\n    ")  # a prompt cannot pose as a line of ours
    lines = [f"[{prompt.get('session')}] {kind} (ticket {prompt.get('ticket')}): {text}"]
    for index, choice in enumerate(prompt.get("choices") or ()):
        lines.append(f"  {index}) {choice}")
    lines.append(f"  {_HOW.get(str(kind), 'type an answer')}; !abort [reason] refuses")
    return "\n".join(lines)


def printable(text: str) -> str:
    """Text with control characters escaped: nothing the server relays can drive the terminal."""
    return "".join(c if c.isprintable() or c == "\n" else f"\\x{ord(c):02x}" for c in text)


def parse_answer(prompt: Mapping[str, Any], text: str) -> tuple[str, dict[str, Any]]:
    """The line type and fields that answer ``prompt`` with what the operator typed."""
    ticket = prompt.get("ticket")
    typed = text.strip()
    if typed == "!abort" or typed.startswith("!abort "):
        return "human.abort", {"ticket": ticket, "reason": typed[len("!abort"):].strip()}
    kind = prompt.get("kind")
    value: Any
    if kind == "confirm":
        answers = {"y": True, "yes": True, "true": True, "n": False, "no": False, "false": False}
        if typed.lower() not in answers:
            raise AnswerError("answer y or n")
        value = answers[typed.lower()]
    elif kind == "choose":
        count = len(prompt.get("choices") or ())
        if not typed.isdigit() or int(typed) >= count:
            raise AnswerError(f"answer a number from 0 to {count - 1}")
        value = int(typed)
    elif kind == "input":
        value = text  # exactly as typed
    else:
        value = typed or None
    return "human.done", {"ticket": ticket, "value": value}


class PromptBook:
    """The prompts open on one connection, oldest first; the terminal answers the oldest."""

    def __init__(self) -> None:
        self._open: dict[str, Mapping[str, Any]] = {}

    @property
    def current(self) -> Mapping[str, Any] | None:
        return next(iter(self._open.values()), None)

    def add(self, prompt: Mapping[str, Any]) -> bool:
        """Open a prompt; True if it is the one the terminal answers now."""
        ticket = prompt.get("ticket")
        if isinstance(ticket, str):
            self._open[ticket] = prompt
        return self.current is prompt

    def end(self, ticket: object) -> bool:
        """Close a prompt; True if it was the one the terminal was answering."""
        was_current = self.current
        if not isinstance(ticket, str) or self._open.pop(ticket, None) is None:
            return False
        return was_current is not None and was_current.get("ticket") == ticket

    def answer(self, text: str) -> tuple[str, dict[str, Any]]:
        prompt = self.current
        if prompt is None:
            raise AnswerError("no prompt is waiting")
        return parse_answer(prompt, text)


# -- frames on disk -------------------------------------------------------------------------


def frame_folder(frames_dir: Path, session: str) -> Path:
    """One folder per session; the name cannot climb out of ``frames_dir``."""
    name = quote(session, safe="", errors="replace").replace(".", "%2E")
    if len(name) > 120:
        name = f"{name[:80]}-{hashlib.sha256(session.encode('utf-8', 'replace')).hexdigest()[:16]}"
    return frames_dir / name


def write_frame(folder: Path, frame: ReceivedFrame, numbered: bool = False) -> Path:
    """Write ``latest.jpg`` (and ``<seq>.jpg``) atomically; the path of ``latest.jpg``."""
    folder.mkdir(parents=True, exist_ok=True)
    targets = [folder / "latest.jpg"] + ([folder / f"{frame.seq:08d}.jpg"] if numbered else [])
    for target in targets:
        partial = target.with_name(f".{target.name}.partial")
        partial.write_bytes(frame.jpeg)
        os.replace(partial, target)
    return targets[0]


# -- the Trio part --------------------------------------------------------------------------


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
    view_options: dict[str, Any] = attrs.field(factory=dict, converter=dict)  # maxFps, maxWidth, quality
    ack_delay: float = 0.0
    ack_policy: AckPolicy = attrs.field(  # wins over ack_delay
        default=attrs.Factory(lambda self: ack_after(self.ack_delay), takes_self=True))
    terminal: trio.abc.ReceiveChannel[str] | None = None  # the operator's typed lines
    out: Callable[[str], None] = attrs.field(default=lambda text: print(text, flush=True))
    on_line: Callable[[dict[str, Any]], None] | None = None  # every line the server sends
    on_frame: Callable[[ReceivedFrame], None] | None = None  # every frame, before it is written
    report_every: float = 5.0
    hello_timeout: float = 10.0
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

    async def send(self, message_type: str, **fields: Any) -> bool:
        """Send one line; False when no server is linked or the write failed."""
        return await self._send(encode(message_type, **fields))

    async def start_view(self, session: str, **options: Any) -> bool:
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
        elif message.type == "error":
            about = f" {tag}" if session is not None else ""
            self._out(f"server error{about} {body.get('code')}: {body.get('error')}")

    async def _on_frame(self, session: str, body: Mapping[str, Any], nursery: trio.Nursery) -> None:
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


async def run_daemon(socket_path: str, token: str, *, frames_dir: Path | str | None = None,
                     views: Iterable[str] = (), ack_delay: float = 0.0,
                     task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED, **options: Any) -> None:
    """Run a :class:`Daemon` until cancelled; ``options`` are its other keyword arguments."""
    daemon = Daemon(socket_path, token, frames_dir=frames_dir, views=views, ack_delay=ack_delay, **options)
    await daemon.run(task_status=task_status)


# -- the command line -----------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="browx-actors daemon",
        description="The reference host daemon: answers await_human prompts from this terminal and "
        "receives live views on the operator socket.")
    parser.add_argument("--socket", required=True, metavar="PATH", help="Unix socket to listen on "
                        "(the server's BROWX_OPERATOR_SOCKET)")
    parser.add_argument("--token", metavar="T", help="the hello token (default: env BROWX_OPERATOR_TOKEN)")
    parser.add_argument("--frames", metavar="DIR", type=Path, help="write DIR/<session>/latest.jpg")
    parser.add_argument("--numbered", action="store_true", help="also keep every frame as <seq>.jpg")
    parser.add_argument("--view", metavar="SESSION", action="extend", nargs="+", default=[],
                        help="ask for a live view of these sessions once linked")
    parser.add_argument("--max-fps", type=float, help="view.start maxFps (server default 5)")
    parser.add_argument("--max-width", type=int, help="view.start maxWidth (server default 960)")
    parser.add_argument("--quality", type=int, help="view.start quality (server default 60)")
    parser.add_argument("--ack-delay", type=float, default=0.0, metavar="S",
                        help="ack each frame S seconds late (to watch the stream step down)")
    parser.add_argument("--report-every", type=float, default=5.0, metavar="S",
                        help="print delivered fps every S seconds (default 5)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    token = args.token or os.environ.get("BROWX_OPERATOR_TOKEN")
    if not token:
        print("browx-actors daemon: give --token or set BROWX_OPERATOR_TOKEN", file=sys.stderr)
        return 2
    options = {name: value for name, value in
               (("maxFps", args.max_fps), ("maxWidth", args.max_width), ("quality", args.quality))
               if value is not None}

    async def daemon_on_this_terminal() -> None:
        send, receive = trio.open_memory_channel[str](16)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_read_stdin, send)
            await run_daemon(args.socket, token, frames_dir=args.frames, views=args.view,
                             ack_delay=args.ack_delay, numbered=args.numbered, view_options=options,
                             terminal=receive, report_every=args.report_every)

    try:
        claim_socket_path(args.socket)
    except DaemonError as exc:
        print(f"browx-actors daemon: {exc}", file=sys.stderr)
        return 1
    interrupted = False
    try:
        trio.run(daemon_on_this_terminal)
    except* KeyboardInterrupt:  # Ctrl-C: Trio hands it out of the nurseries in a group
        interrupted = True
    return 130 if interrupted else 0


async def _read_stdin(send: trio.MemorySendChannel[str]) -> None:
    async with send:
        while line := await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True):
            await send.send(line.rstrip("\n"))
