"""The reference daemon: its pure pieces, one connection driven over memory streams under a
MockClock, its socket and files for real, and the real server's operator channel dialling it."""

from __future__ import annotations

import functools
import io
import json
import os
import socket as stdlib_socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trio
import trio.testing
from PIL import Image

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.config import parse_capabilities
from browx_actors.daemon import (
    AnswerError,
    Daemon,
    DaemonError,
    PromptBook,
    ViewTrack,
    ack_after,
    build_parser,
    claim_socket_path,
    describe_prompt,
    frame_folder,
    main,
    never_ack,
    parse_answer,
    printable,
    write_frame,
)
from browx_actors.operator_wire import MAX_LINE, LineBuffer, Oversized, encode
from browx_actors.streams.framing import ReceivedFrame, encode_frame
from browx_actors.streams.request import parse_view_start, started_line

TOKEN = "daemon-token-51c2"
WAIT = 10  # seconds any single step may take before the test fails
AT = 1_790_000_000_000


@functools.cache
def jpeg(width: int = 960, height: int = 540, seed: int = 0) -> bytes:
    """A real JPEG of a mostly flat page with a busy patch: a few parts, like a real frame."""
    pixels = np.full((height, width, 3), 230, np.uint8)
    pixels[:200, :200] = np.random.default_rng(seed).integers(0, 256, (200, 200, 3), np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=95)
    return out.getvalue()


def prompt_line(prompt: dict[str, Any]) -> bytes:
    return encode("human.prompt", **{k: v for k, v in prompt.items() if k != "type"})


def received(seq: int = 1, width: int = 960, session: str = "default") -> ReceivedFrame:
    return ReceivedFrame(session, seq, AT, width, 540, b"\xff\xd8jpeg" + bytes([seq % 256]))


# -- pure: answers and prompts ----------------------------------------------------------------------


CONFIRM = {"type": "human.prompt", "session": "default", "ticket": "3fa9c1", "kind": "confirm",
           "prompt": "Send the email?", "choices": None, "timeoutMs": 60_000}
CHOOSE = {**CONFIRM, "ticket": "0b11e2", "kind": "choose", "prompt": "Which account?", "choices": ["alice", "bob"]}
INPUT = {**CONFIRM, "ticket": "77aa00", "kind": "input", "prompt": "The SMS code?"}
ACK = {**CONFIRM, "ticket": "c0ffee", "kind": "acknowledge", "prompt": "Log in, then proceed"}


@pytest.mark.parametrize(("prompt", "typed", "value"), [
    (CONFIRM, "y", True), (CONFIRM, " YES ", True), (CONFIRM, "true", True),
    (CONFIRM, "n", False), (CONFIRM, "No", False), (CONFIRM, "false", False),
    (CHOOSE, "0", 0), (CHOOSE, " 1 ", 1),
    (INPUT, "  493 817 ", "  493 817 "), (INPUT, "", ""),
    (ACK, "", None), (ACK, "done, logged in", "done, logged in"),
])
def test_what_the_operator_types_becomes_the_value_the_kind_needs(prompt: dict[str, Any], typed: str,
                                                                  value: Any) -> None:
    assert parse_answer(prompt, typed) == ("human.done", {"ticket": prompt["ticket"], "value": value})


@pytest.mark.parametrize(("prompt", "typed"), [
    (CONFIRM, "maybe"), (CONFIRM, ""), (CHOOSE, "2"), (CHOOSE, "-1"), (CHOOSE, "alice"), (CHOOSE, "1.0"),
])
def test_an_answer_the_kind_cannot_take_is_refused_saying_what_would_do(prompt: dict[str, Any], typed: str) -> None:
    with pytest.raises(AnswerError, match="answer"):
        parse_answer(prompt, typed)


@pytest.mark.parametrize(("typed", "reason"), [("!abort", ""),
                                               ("!abort  the operator is away ", "the operator is away")])
def test_bang_abort_refuses_any_prompt(typed: str, reason: str) -> None:
    for prompt in (CONFIRM, CHOOSE, INPUT, ACK):
        assert parse_answer(prompt, typed) == ("human.abort", {"ticket": prompt["ticket"], "reason": reason})
    assert parse_answer(INPUT, "!abortive")[0] == "human.done"


def test_a_prompt_shows_its_session_kind_text_choices_and_ticket() -> None:
    text = describe_prompt(CHOOSE)
    assert text.splitlines() == [
        "[default] choose (ticket 0b11e2): Which account?",
        "  0) alice",
        "  1) bob",
        "  answer with the number of a choice; !abort [reason] refuses",
    ]
    assert "answer y or n" in describe_prompt(CONFIRM)


def test_a_prompt_cannot_pose_as_a_line_of_the_daemon_or_drive_the_terminal() -> None:
    text = describe_prompt({**CONFIRM, "prompt": "ok?\n[default] first frame 1x1\x1b[2J"})
    assert text.splitlines()[1].startswith("    [default] first frame")
    assert printable(text).count("\x1b") == 0 and "\\x1b[2J" in printable(text)
    assert printable("a\tb\rc\u202ed\n") == "a\\x09b\\x0dc\\x202ed\n"


def test_the_prompt_book_answers_the_oldest_prompt_first() -> None:
    book = PromptBook()
    with pytest.raises(AnswerError, match="no prompt"):
        book.answer("y")
    assert book.add(CONFIRM) is True
    assert book.add(CHOOSE) is False
    assert book.answer("y") == ("human.done", {"ticket": "3fa9c1", "value": True})
    assert book.end("nope") is False and book.end(None) is False
    assert book.end("0b11e2") is False  # not the one being answered
    assert book.current is CONFIRM
    assert book.end("3fa9c1") is True and book.current is None


# -- pure: views, acks, files -----------------------------------------------------------------------


def test_a_view_notes_its_first_frame_and_each_change_of_width() -> None:
    track = ViewTrack("default", since=100.0)
    notes = [track.delivered(received(seq, width)) for seq, width in enumerate([960, 960, 867, 867, 960])]
    assert notes == ["first frame 960x540", None, "level change 960x540 -> 867x540", None,
                     "level change 867x540 -> 960x540"]
    assert track.fps(102.0) == 2.5 and track.frames == 5
    assert track.fps(104.0) == 0.0  # each report covers the period since the last
    assert track.fps(104.0) == 0.0  # and an empty period is 0, not a division by zero


def test_ack_policies() -> None:
    assert ack_after(0.0)(received()) == 0.0 and ack_after(1.5)(received()) == 1.5
    assert never_ack(received()) is None


def test_frames_are_written_whole_and_in_one_folder_per_session(tmp_path: Path) -> None:
    folder = frame_folder(tmp_path, "default")
    assert folder == tmp_path / "default"
    latest = write_frame(folder, received(7), numbered=True)
    write_frame(folder, received(8), numbered=True)
    assert latest == folder / "latest.jpg" and latest.read_bytes() == received(8).jpeg
    assert sorted(p.name for p in folder.iterdir()) == ["00000007.jpg", "00000008.jpg", "latest.jpg"]
    write_frame(folder, received(9))
    assert sorted(p.name for p in folder.iterdir()) == ["00000007.jpg", "00000008.jpg", "latest.jpg"]


@pytest.mark.parametrize("session", ["..", ".", "../../etc", "a/b", "/abs", "x" * 300, "\ud800"])
def test_a_session_name_cannot_climb_out_of_the_frames_folder(tmp_path: Path, session: str) -> None:
    folder = frame_folder(tmp_path, session)
    assert folder.parent == tmp_path and folder.name not in ("", ".", "..") and len(folder.name) <= 120
    write_frame(folder, received())
    assert (folder / "latest.jpg").is_file()


def test_a_stale_socket_is_removed_and_a_live_one_or_another_file_is_not(tmp_path: Path) -> None:
    claim_socket_path(str(tmp_path / "absent.sock"))  # nothing there: nothing to do
    stale = tmp_path / "stale.sock"
    with stdlib_socket.socket(stdlib_socket.AF_UNIX) as dead:
        dead.bind(str(stale))
    claim_socket_path(str(stale))
    assert not stale.exists()
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    with pytest.raises(DaemonError, match="not a socket"):
        claim_socket_path(str(other))
    live = tmp_path / "live.sock"
    with stdlib_socket.socket(stdlib_socket.AF_UNIX) as listening:
        listening.bind(str(live))
        listening.listen(1)
        with pytest.raises(DaemonError, match="already listening"):
            claim_socket_path(str(live))
    assert other.read_text() == "keep me" and live.exists()


def test_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["--socket", "/s", "--token", "t", "--view", "a", "b", "--view", "c",
                                      "--frames", "out", "--numbered", "--ack-delay", "0.5", "--max-width", "640"])
    assert (args.socket, args.token, args.view, args.frames, args.numbered, args.ack_delay, args.max_width) == \
        ("/s", "t", ["a", "b", "c"], Path("out"), True, 0.5, 640)
    monkeypatch.delenv("BROWX_OPERATOR_TOKEN", raising=False)
    assert main(["--socket", str(tmp_path / "d.sock")]) == 2
    assert "--token" in capsys.readouterr().err
    taken = tmp_path / "taken"
    taken.write_text("")
    monkeypatch.setenv("BROWX_OPERATOR_TOKEN", TOKEN)
    assert main(["--socket", str(taken)]) == 1
    assert "not a socket" in capsys.readouterr().err


# -- one connection, under a MockClock ------------------------------------------------------------


class Server:
    """The server's end of a connection to the daemon: lines out, messages in."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.lines = LineBuffer(MAX_LINE)

    async def send(self, line: bytes) -> None:
        await self.stream.send_all(line)

    async def recv(self) -> dict[str, Any]:
        with trio.fail_after(WAIT):
            while (item := self.lines.next()) is None:
                data = await self.stream.receive_some(65536)
                if not data:
                    raise EOFError("the daemon closed the connection")
                self.lines.feed(bytes(data))
        assert not isinstance(item, Oversized)
        message: dict[str, Any] = json.loads(item)
        assert message["v"] == 1
        return message

    async def rest(self) -> list[dict[str, Any]]:
        """Every message until the daemon closes its end."""
        out = []
        while True:
            try:
                out.append(await self.recv())
            except (EOFError, trio.BrokenResourceError):
                return out

    async def link(self) -> None:
        assert await self.recv() == {"v": 1, "type": "hello", "token": TOKEN}
        await self.send(encode("ready", server="browx-actors"))

    async def frame(self, seq: int, width: int = 960, session: str = "default") -> bytes:
        image = jpeg(width, seed=seq % 3)
        frame = encode_frame(session, seq, AT, image)
        assert len(frame.lines) > 1
        await self.send(frame.wire)
        return image


@asynccontextmanager
async def connected(**options: Any) -> AsyncIterator[tuple[Daemon, Server, list[str]]]:
    printed: list[str] = []
    daemon = Daemon("unused.sock", TOKEN, out=printed.append, **options)
    server_end, daemon_end = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(daemon.serve, daemon_end)
        yield daemon, Server(server_end), printed
        nursery.cancel_scope.cancel()


async def test_the_daemon_says_hello_asks_for_its_views_and_acks_each_frame_late_when_told(
        autojump_clock: trio.testing.MockClock) -> None:
    frames: list[ReceivedFrame] = []
    async with connected(views=["default", "second"], view_options={"maxFps": 2}, ack_delay=1.5,
                         on_frame=frames.append) as (daemon, server, printed):
        await server.link()
        assert await server.recv() == {"v": 1, "type": "view.start", "session": "default", "maxFps": 2}
        assert await server.recv() == {"v": 1, "type": "view.start", "session": "second", "maxFps": 2}
        await server.send(started_line(parse_view_start({"session": "default", "maxFps": 2})))
        sent_at = trio.current_time()
        jpeg = await server.frame(7)
        assert await server.recv() == {"v": 1, "type": "frame.ack", "session": "default", "seq": 7}
        assert trio.current_time() - sent_at == pytest.approx(1.5)
        assert [f.jpeg for f in frames] == [jpeg] and frames[0].seq == 7
        assert "[default] view started: 960 px, 2 fps, quality 60" in printed
        assert "[default] first frame 960x540" in printed and daemon.links == 1


async def test_each_frame_is_acked_as_its_own_policy_says(autojump_clock: trio.testing.MockClock) -> None:
    delays = {1: None, 2: 3.0, 3: 0.5}
    async with connected(ack_policy=lambda frame: delays[frame.seq]) as (daemon, server, _):
        await server.link()
        start = trio.current_time()
        for seq in delays:
            await server.frame(seq)
        acks = [(await server.recv(), trio.current_time() - start) for _ in range(2)]
        assert acks == [({"v": 1, "type": "frame.ack", "session": "default", "seq": 3}, pytest.approx(0.5)),
                        ({"v": 1, "type": "frame.ack", "session": "default", "seq": 2}, pytest.approx(3.0))]
        await daemon.drop()
        assert await server.rest() == []  # frame 1 was never acked


async def test_broken_parts_are_reported_and_the_stream_goes_on(autojump_clock: trio.testing.MockClock) -> None:
    async with connected() as (_, server, printed):
        await server.link()
        lines = encode_frame("default", 1, AT, jpeg()).lines
        assert len(lines) > 1
        await server.send(lines[1])  # a part without the parts before it
        await server.frame(2)
        assert (await server.recv())["seq"] == 2
        assert any("bad frame part" in line for line in printed)


async def test_level_changes_and_delivered_fps_are_printed(autojump_clock: trio.testing.MockClock) -> None:
    async with connected(report_every=5.0) as (_, server, printed):
        await server.link()
        await server.send(started_line(parse_view_start({"session": "default", "maxFps": 2})))
        for seq in range(10):
            await server.frame(seq, width=960 if seq < 5 else 867)
            await server.recv()  # its ack
            await trio.sleep(0.5)
        await trio.sleep(0.6)
        assert "[default] level change 960x540 -> 867x540" in printed
        assert "[default] 2.0 fps delivered (asked 2)" in printed


async def test_prompts_are_answered_from_the_terminal_oldest_first(autojump_clock: trio.testing.MockClock) -> None:
    typed_in, terminal = trio.open_memory_channel[str](4)
    async with connected() as (daemon, server, printed), trio.open_nursery() as nursery:
        nursery.start_soon(daemon.answer_from, terminal)
        await typed_in.send("y")
        await server.link()
        for prompt in (CONFIRM, CHOOSE):
            await server.send(prompt_line(prompt))
        await trio.testing.wait_all_tasks_blocked()
        assert printed[-1] == describe_prompt(CONFIRM)  # only the oldest is shown
        await typed_in.send("maybe")
        await typed_in.send("y")
        assert await server.recv() == {"v": 1, "type": "human.done", "ticket": "3fa9c1", "value": True}
        await server.send(encode("human.ended", ticket="3fa9c1", reason="answered"))
        await trio.testing.wait_all_tasks_blocked()
        await typed_in.send("!abort not my account")
        assert await server.recv() == {"v": 1, "type": "human.abort", "ticket": "0b11e2",
                                       "reason": "not my account"}
        assert "no prompt is waiting" in printed  # the "y" typed before the link
        assert "answer y or n" in printed
        assert "prompt 3fa9c1 ended: answered" in printed and describe_prompt(CHOOSE) in printed
        nursery.cancel_scope.cancel()


async def test_every_line_reaches_on_line_and_errors_are_printed(autojump_clock: trio.testing.MockClock) -> None:
    seen: list[dict[str, Any]] = []
    async with connected(on_line=seen.append) as (_, server, printed):
        await server.link()
        await server.send(encode("error", code="view-limit", error="4 streams are running already",
                                 session="fifth"))
        await server.send(b"not json\n")
        await server.send(encode("view.stopped", session="fifth", reason="daemon"))
        await trio.testing.wait_all_tasks_blocked()
        assert [m["type"] for m in seen] == ["ready", "error", "view.stopped"]
        assert "server error [fifth] view-limit: 4 streams are running already" in printed
        assert "unreadable line from the server: not a JSON line" in printed
        assert "[fifth] view stopped: daemon" in printed


async def test_a_refused_hello_ends_the_connection(autojump_clock: trio.testing.MockClock) -> None:
    async with connected() as (daemon, server, printed):
        assert (await server.recv())["type"] == "hello"
        await server.send(encode("error", code="bad-hello", error="the first line must be the hello"))
        assert await server.rest() == []
        assert "the server refused the hello: error bad-hello" in printed and daemon.links == 0


async def test_a_silent_server_is_given_up_on(autojump_clock: trio.testing.MockClock) -> None:
    async with connected(hello_timeout=5.0) as (_, server, printed):
        assert (await server.recv())["type"] == "hello"
        assert await server.rest() == []
        assert "the server refused the hello: no answer" in printed


async def test_drop_closes_the_link_and_forgets_its_prompts_and_views(autojump_clock: trio.testing.MockClock) -> None:
    async with connected() as (daemon, server, printed):
        await server.link()
        await server.send(prompt_line(CONFIRM))
        await server.send(started_line(parse_view_start({"session": "default"})))
        await trio.testing.wait_all_tasks_blocked()
        assert daemon.prompts.current is not None and "default" in daemon.tracks
        await daemon.drop()
        assert await server.rest() == []
        await trio.testing.wait_all_tasks_blocked()
        assert daemon.prompts.current is None and daemon.tracks == {}
        assert printed[-1] == "the server's connection is gone"
        assert not await daemon.send("view.stop", session="default")  # nothing to write to


# -- for real: the socket and the files ------------------------------------------------------------


async def test_the_daemon_listens_privately_and_writes_each_frame_before_acking_it(tmp_path: Path) -> None:
    path = tmp_path / "d.sock"
    frames_dir = tmp_path / "frames"
    daemon = Daemon(str(path), TOKEN, frames_dir=frames_dir, numbered=True, out=lambda text: None)
    async with trio.open_nursery() as nursery:
        await nursery.start(daemon.run)
        assert os.stat(path).st_mode & 0o777 == 0o600
        server = Server(await trio.open_unix_socket(str(path)))
        await server.link()
        for seq in (1, 2):
            jpeg = await server.frame(seq)
            assert (await server.recv())["seq"] == seq
            assert (frames_dir / "default" / "latest.jpg").read_bytes() == jpeg  # already there at the ack
        assert sorted(p.name for p in (frames_dir / "default").iterdir()) == \
            ["00000001.jpg", "00000002.jpg", "latest.jpg"]
        await server.stream.aclose()
        again = Server(await trio.open_unix_socket(str(path)))  # the next connection is served too
        await again.link()
        await again.frame(3)
        assert (await again.recv())["seq"] == 3
        nursery.cancel_scope.cancel()


# -- with the real server ------------------------------------------------------------------------------


async def test_the_real_server_dials_the_daemon_and_its_terminal_answers_a_prompt(tmp_path: Path) -> None:
    path = tmp_path / "op.sock"
    assert len(str(path)) < 100, "Unix socket paths are limited to 107 bytes"
    seen_in, seen = trio.open_memory_channel[dict[str, Any]](64)
    typed_in, terminal = trio.open_memory_channel[str](4)
    printed: list[str] = []
    daemon = Daemon(str(path), TOKEN, terminal=terminal, out=printed.append, on_line=seen_in.send_nowait)

    async def next_of(kind: str) -> dict[str, Any]:
        with trio.fail_after(WAIT):
            async for message in seen:
                if message["type"] == kind:
                    return message
        raise AssertionError(f"no {kind}")

    config = RuntimeConfig(capabilities=parse_capabilities("operator-channel"), operator_socket=str(path),
                           operator_token=TOKEN, workspace=tmp_path)
    async with trio.open_nursery() as nursery:
        await nursery.start(daemon.run)
        async with open_runtime(config=config) as runtime:
            assert (await next_of("ready"))["server"] == "browx-actors"
            status = await runtime.call_tool("runtime_status")
            tree = {child["id"]: child for child in status["tree"]["children"]}
            assert tree["operator-channel"]["connected"] is True
            results: list[dict[str, Any]] = []

            async def ask() -> None:
                results.append(await runtime.call_tool("await_human", {
                    "kind": "choose", "prompt": "Which account?", "choices": ["alice", "bob"],
                    "timeoutMs": 60_000}))

            async with trio.open_nursery() as asking:
                asking.start_soon(ask)
                prompt = await next_of("human.prompt")
                assert describe_prompt(prompt) in printed
                await typed_in.send("1")
            assert results == [{"ok": True, "kind": "choose", "value": 1, "timedOut": False}]
            ended = await next_of("human.ended")
            assert ended == {"v": 1, "type": "human.ended", "ticket": prompt["ticket"], "reason": "answered"}
        nursery.cancel_scope.cancel()


async def test_a_view_asked_for_too_early_is_asked_for_again_until_the_session_exists(
        autojump_clock: trio.testing.MockClock) -> None:
    async with connected(views=["default"]) as (_, server, printed):
        await server.link()
        assert (await server.recv())["type"] == "view.start"
        asked = trio.current_time()
        await server.send(encode("error", code="unknown-session", error="no open session by that name",
                                 session="default"))
        assert await server.recv() == {"v": 1, "type": "view.start", "session": "default"}
        assert trio.current_time() - asked == pytest.approx(2.0)
        await server.send(started_line(parse_view_start({"session": "default"})))
        await server.send(encode("view.stopped", session="default", reason="page-closed"))
        assert (await server.recv())["type"] == "view.start"  # its page went away: watch the next one
        await server.send(encode("view.stopped", session="default", reason="daemon"))
        await server.send(encode("error", code="unknown-session", error="no open session", session="other"))
        await server.send(encode("error", code="view-limit", error="4 streams are running already",
                                 session="default"))
        with pytest.raises(trio.TooSlowError):  # nothing within 10 s: not after a stop the daemon asked
            await server.recv()                 # for, a refusal of another kind, or another session
        assert "server error [default] unknown-session: no open session by that name" in printed
