"""The StreamSupervisor under a MockClock: refusals, the 4-stream cap, replacement, stops,
acks routed by link, a dropped link ending its streams, status, and shutdown.

Sessions are :class:`FakeSession` actors handing out scripted sources; each
``view.start`` gets its own outlet writing into a :class:`Wire`, as the operator
channel gives it one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs
import trio
import trio.testing

from browx_actors.kernel.actor_ref import ActorRef
from browx_actors.streams.messages import AckFrame, ChannelDown, StartView, StopView, StreamStatus
from browx_actors.streams.outlet import Outlet
from browx_actors.streams.request import ViewRequest
from browx_actors.streams.supervisor import LIMIT, StreamSupervisor
from live_support import FakeSession, FakeSource, Wire
from polling import poll_until


@attrs.define
class Tree:
    supervisor: StreamSupervisor
    ref: ActorRef
    sessions: dict[str, ActorRef]
    sources: dict[str, list[FakeSource]]
    nursery: trio.Nursery

    async def open(self, name: str) -> None:
        """A session ``name`` whose every watch gets a fresh source."""
        sources = self.sources.setdefault(name, [])
        session = _Fresh(sources)
        self.sessions[name] = await self.nursery.start(session.run)

    async def start(self, session: str, generation: int = 1, **options: Any) -> Wire:
        wire = Wire()
        outlet = Outlet(wire.write, generation)
        self.nursery.start_soon(outlet.run)
        await self.ref.cast(StartView(ViewRequest(session, **options), outlet))
        await trio.testing.wait_all_tasks_blocked()
        return wire

    async def status(self) -> dict[str, Any]:
        status: dict[str, Any] = await self.ref.call(StreamStatus())
        return status


class _Fresh(FakeSession):
    def __init__(self, sources: list[FakeSource]) -> None:
        super().__init__(None)
        self.sources = sources

    async def handle(self, msg: Any) -> Any:
        await super().handle(msg)
        source = FakeSource(name=f"source {len(self.sources) + 1}")
        self.sources.append(source)
        return source


@asynccontextmanager
async def tree() -> AsyncIterator[Tree]:
    sessions: dict[str, ActorRef] = {}

    async def find_session(name: str) -> ActorRef | None:
        ref = sessions.get(name)
        return ref if ref is not None and ref.alive else None

    async with trio.open_nursery() as nursery:
        supervisor = StreamSupervisor(find_session)
        ref = await nursery.start(supervisor.run)
        yield Tree(supervisor, ref, sessions, {}, nursery)
        nursery.cancel_scope.cancel()


def kinds(wire: Wire) -> list[str]:
    return [line["type"] for _, line in wire.lines if line["type"] != "frame" or line["part"] == 0]


async def test_a_view_of_a_session_that_is_not_open_is_refused(autojump_clock: trio.testing.MockClock) -> None:
    async with tree() as t:
        wire = await t.start("nobody")
        assert [line for _, line in wire.lines] == [{
            "v": 1, "type": "error", "code": "unknown-session", "session": "nobody",
            "error": "no open session by that name (a view never opens one)"}]
        status = await t.status()
        assert status["running"] == 0 and status["refused"] == {"unknown-session": 1}


async def test_at_most_four_streams_and_a_replacement_does_not_count(autojump_clock: trio.testing.MockClock) -> None:
    async with tree() as t:
        for name in "abcde":
            await t.open(name)
        wires = {name: await t.start(name) for name in "abcd"}
        assert LIMIT == 4 and all(kinds(w)[0] == "view.started" for w in wires.values())
        fifth = await t.start("e")
        assert [line["code"] for _, line in fifth.lines] == ["view-limit"]
        again = await t.start("a", max_width=640)
        assert kinds(again)[0] == "view.started" and again.of("view.started")[0]["maxWidth"] == 640
        status = await t.status()
        assert status["running"] == 4 and status["refused"] == {"view-limit": 1}
        assert sorted(s["session"] for s in status["streams"]) == ["a", "b", "c", "d"]


async def test_a_second_view_start_replaces_the_stream_and_frame_numbers_go_on(
        autojump_clock: trio.testing.MockClock) -> None:
    async with tree() as t:
        await t.open("a")
        first = await t.start("a")
        await trio.sleep(1)
        old_source = t.sources["a"][0]
        second = await t.start("a", max_fps=2)
        await trio.sleep(1)
        assert not old_source.running and t.sources["a"][1].running
        assert "view.stopped" not in kinds(first)  # replaced: its successor speaks
        assert second.of("view.started")[0]["maxFps"] == 2
        last_old = first.frames()[-1][1]["seq"]
        assert second.frames()[0][1]["seq"] == last_old + 1
        ended = (await t.status())["ended"]
        assert [(e["session"], e["reason"]) for e in ended] == [("a", "replaced")]


async def test_view_stop_ends_the_stream_and_acks_reach_it_only_from_its_own_link(
        autojump_clock: trio.testing.MockClock) -> None:
    async with tree() as t:
        await t.open("a")
        wire = await t.start("a", generation=7)
        frame = await wire.wait_for(lambda line: line["type"] == "frame")
        await t.ref.cast(AckFrame("a", frame["seq"], generation=8))  # another link's ack: ignored
        await t.ref.cast(StopView("a", generation=8))  # and its stop
        await trio.sleep(0.1)
        assert (await t.status())["streams"][0]["frames"]["acked"] == 0
        await t.ref.cast(AckFrame("a", frame["seq"], generation=7))
        await trio.testing.wait_all_tasks_blocked()
        assert (await t.status())["streams"][0]["frames"]["acked"] == 1
        await t.ref.cast(StopView("a", generation=7))
        await trio.testing.wait_all_tasks_blocked()
        assert wire.lines[-1][1] == {"v": 1, "type": "view.stopped", "session": "a", "reason": "daemon"}
        assert (await t.status())["running"] == 0
        await t.ref.cast(StopView("a", generation=7))  # nothing left to stop: nothing happens


async def test_a_dropped_link_ends_its_streams_and_only_its_own(autojump_clock: trio.testing.MockClock) -> None:
    async with tree() as t:
        for name in "abc":
            await t.open(name)
        old = [await t.start(name, generation=1) for name in "ab"]
        newer = await t.start("c", generation=2)
        for wire in old:
            wire.broken = True  # the socket is gone: nothing more reaches that daemon
        await t.ref.cast(ChannelDown(1))
        await trio.testing.wait_all_tasks_blocked()
        status = await t.status()
        assert [s["session"] for s in status["streams"]] == ["c"]
        assert sorted((e["session"], e["reason"]) for e in status["ended"]) == [("a", "channel-down"),
                                                                               ("b", "channel-down")]
        assert all("view.stopped" not in kinds(w) for w in old) and "view.stopped" not in kinds(newer)
        assert not any(s.running for name in "ab" for s in t.sources[name])


async def test_shutting_down_ends_every_view_channel_closed(autojump_clock: trio.testing.MockClock) -> None:
    async with tree() as t:
        for name in "ab":
            await t.open(name)
        wires = [await t.start(name) for name in "ab"]
        await trio.sleep(1)
        t.supervisor.stop()
        await poll_until(lambda: not t.ref.alive, interval=0.01, timeout=30)
        await trio.testing.wait_all_tasks_blocked()
        for wire, name in zip(wires, "ab", strict=True):
            assert wire.lines[-1][1] == {"v": 1, "type": "view.stopped", "session": name, "reason": "channel-closed"}
