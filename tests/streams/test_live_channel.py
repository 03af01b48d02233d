"""The live view through the real operator channel, with the reference daemon on a real Unix socket.

The server side is the real :class:`OperatorChannel` routing to a real
:class:`StreamSupervisor`; the sessions are :class:`FakeSession` actors with scripted
sources (no browser: the real-Chromium tests are in ``test_live_chromium.py``). These
use real time, briefly: a source paints every 20 ms.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from browx_actors.daemon import Daemon
from browx_actors.human.await_human import ask_operator
from browx_actors.human.operator import OperatorChannel
from browx_actors.human.prompts import PromptSpec
from browx_actors.kernel.actor_ref import ActorRef
from browx_actors.streams.messages import StreamStatus
from browx_actors.streams.supervisor import StreamSupervisor
from live_support import FakeSession, FakeSource
from polling import poll_until

TOKEN = "live-token-0c1d"
WAIT = 10


@attrs.define
class Live:
    daemon: Daemon
    channel: OperatorChannel
    streams: StreamSupervisor | None
    sessions: dict[str, ActorRef]
    seen: list[dict[str, Any]]
    printed: list[str]
    nursery: trio.Nursery

    async def line(self, predicate: Any, after: int = 0) -> dict[str, Any]:
        with trio.fail_after(WAIT):
            while True:
                for message in self.seen[after:]:
                    if predicate(message):
                        return message
                await trio.sleep(0.005)

    async def status(self) -> dict[str, Any]:
        assert self.streams is not None
        status: dict[str, Any] = await self.streams.ref.call(StreamStatus())
        return status

    async def open(self, name: str, *sources: Any) -> None:
        self.sessions[name] = await self.nursery.start(FakeSession(*(sources or (FakeSource(0.02),))).run)


@asynccontextmanager
async def live(tmp_path: Path, *, live_view: bool = True, **daemon_options: Any) -> AsyncIterator[Live]:
    path = str(tmp_path / "op.sock")
    seen: list[dict[str, Any]] = []
    printed: list[str] = []
    sessions: dict[str, ActorRef] = {}

    async def find_session(name: str) -> ActorRef | None:
        return sessions.get(name)

    daemon = Daemon(path, TOKEN, out=printed.append, on_line=seen.append, **daemon_options)
    async with trio.open_nursery() as nursery:
        await nursery.start(daemon.run)
        streams = StreamSupervisor(find_session) if live_view else None
        if streams is not None:
            await nursery.start(streams.run)
        channel = OperatorChannel(path, TOKEN, live_view=live_view,
                                  streams=(lambda: streams.ref) if streams is not None else None)
        await nursery.start(channel.run)
        await poll_until(lambda: daemon.links != 0, interval=0.005, timeout=WAIT)
        yield Live(daemon, channel, streams, sessions, seen, printed, nursery)
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("kind", ["view.start", "view.stop", "frame.ack"])
async def test_with_live_view_off_every_view_line_is_refused_and_nothing_starts(tmp_path: Path, kind: str) -> None:
    async with live(tmp_path, live_view=False) as lv:
        await lv.daemon.send(kind, session="default", seq=1)
        error = await lv.line(lambda m: m["type"] == "error")
        assert error == {"v": 1, "type": "error", "code": "view-disabled", "error": "the live-view capability is off",
                         "session": "default"}


@pytest.mark.parametrize(("fields", "field"), [
    ({"maxFps": "fast"}, "maxFps"), ({"maxWidth": 960.5}, "maxWidth"), ({"quality": True}, "quality"),
    ({"format": "png"}, "format"), ({"session": 7}, "session"),
])
async def test_a_bad_view_start_is_refused_invalid_view_naming_the_field(tmp_path: Path, fields: dict[str, Any],
                                                                         field: str) -> None:
    async with live(tmp_path) as lv:
        await lv.open("default")
        await lv.daemon.send("view.start", **{"session": "default", **fields})
        error = await lv.line(lambda m: m["type"] == "error")
        assert error["code"] == "invalid-view" and error["field"] == field
        assert (await lv.status())["running"] == 0


async def test_frames_and_prompts_share_the_socket_without_tearing_a_frame(tmp_path: Path) -> None:
    async with live(tmp_path) as lv:
        await lv.open("default", FakeSource(0.02, busy=True))  # frames of several parts each
        await lv.daemon.start_view("default", maxWidth=640, maxFps=5)
        started = await lv.line(lambda m: m["type"] == "view.started")
        assert started == {"v": 1, "type": "view.started", "session": "default", "format": "jpeg", "maxFps": 5,
                           "maxWidth": 640, "quality": 60}
        answers: list[str] = []

        async def ask(i: int) -> None:  # one prompt per session: a session has one open at a time
            await ask_operator(lv.channel.ref, f"s{i}", PromptSpec("acknowledge", "x" * 2000, None, 60_000))

        async with trio.open_nursery() as asking:
            for i in range(20):  # prompts written while frames go out
                asking.start_soon(ask, i)
                await trio.sleep(0.05)
            for _ in range(20):
                prompt = await lv.line(lambda m: m["type"] == "human.prompt" and m["ticket"] not in answers)
                answers.append(prompt["ticket"])
                await lv.daemon.send("human.done", ticket=prompt["ticket"], value=None)
        frames = [m for m in lv.seen if m["type"] == "frame"]
        assert len({m["seq"] for m in frames}) >= 5 and max(m["parts"] for m in frames) > 1
        track = lv.daemon.tracks["default"]
        assert track.reassembler.torn == 0 and not any("bad frame part" in p for p in lv.printed)
        stats = (await lv.status())["streams"][0]
        assert stats["frames"]["acked"] >= 5 and stats["write"]["framesWritten"] == stats["frames"]["sent"]


async def test_refusals_come_back_on_the_socket(tmp_path: Path) -> None:
    async with live(tmp_path) as lv:
        for name in "abcd":
            await lv.open(name)
        await lv.open("bare", None)  # an engine without a frame source
        await lv.daemon.start_view("nobody")
        assert (await lv.line(lambda m: m["type"] == "error"))["code"] == "unknown-session"
        await lv.daemon.start_view("bare")
        assert (await lv.line(lambda m: m["type"] == "error" and m["session"] == "bare"))["code"] == "view-unsupported"
        for name in "abcd":
            await lv.daemon.start_view(name)
        for name in "abcd":
            await lv.line(lambda m, name=name: m["type"] == "view.started" and m["session"] == name)
        await lv.open("e")
        await lv.daemon.start_view("e")
        assert (await lv.line(lambda m: m["type"] == "error" and m["session"] == "e"))["code"] == "view-limit"
        await lv.daemon.stop_view("a")
        stopped = await lv.line(lambda m: m["type"] == "view.stopped")
        assert stopped == {"v": 1, "type": "view.stopped", "session": "a", "reason": "daemon"}
        mark = len(lv.seen)
        await lv.daemon.start_view("e")  # room again
        await lv.line(lambda m: m["type"] == "view.started" and m["session"] == "e", after=mark)


async def test_a_dropped_socket_ends_every_stream_channel_down_and_a_redial_resumes_none(tmp_path: Path) -> None:
    async with live(tmp_path) as lv:
        for name in "ab":
            await lv.open(name)
            await lv.daemon.start_view(name)
        for name in "ab":
            await lv.line(lambda m, name=name: m["type"] == "frame" and m["session"] == name)
        old_link = {s["link"] for s in (await lv.status())["streams"]}
        await lv.daemon.drop()

        async def stopped_status() -> dict[str, Any] | None:
            status = await lv.status()
            return None if status["running"] else status

        status = await poll_until(stopped_status, interval=0.01, timeout=WAIT)
        assert sorted((e["session"], e["reason"]) for e in status["ended"]) == [("a", "channel-down"),
                                                                               ("b", "channel-down")]
        await poll_until(lambda: lv.daemon.links >= 2, interval=0.01, timeout=WAIT)  # the server dials again
        mark = len(lv.seen)
        await trio.sleep(0.5)
        assert [m["type"] for m in lv.seen[mark:]] == []  # nothing resumed on the new link
        assert (await lv.status())["running"] == 0
        await lv.daemon.start_view("a")  # the daemon starts what it wants again
        frame = await lv.line(lambda m: m["type"] == "frame", after=mark)
        assert frame["session"] == "a"
        (new_link,) = {s["link"] for s in (await lv.status())["streams"]}
        assert len(old_link) == 1 and new_link > old_link.pop()


async def test_acks_and_stops_for_sessions_without_a_view_are_ignored(tmp_path: Path) -> None:
    async with live(tmp_path) as lv:
        await lv.daemon.send("frame.ack", session="default", seq=3)
        await lv.daemon.stop_view("default")
        await lv.daemon.send("frame.ack", session="default", seq=-1)
        error = await lv.line(lambda m: m["type"] == "error")
        assert error["code"] == "invalid-view" and error["field"] == "seq"
        assert [m["type"] for m in lv.seen] == ["ready", "error"]
