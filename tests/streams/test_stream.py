"""The LiveViewStream actor, fed by a scripted frame source, under a MockClock.

Every window and timeout of the live view (``docs/operator-channel.md``) against the
actor itself (the pure policy has its own tests): 5 s lost, 30 s stalled, the 2 s drop
window, 10 clean seconds; frames that find the socket backed up; following the session's
current tab; every way a view ends and every way it can fail to start. The stream's
outlet writes into a :class:`Wire` (its lines parsed, stamped with the mock time) and a
daemon is played by :meth:`Wire.ack`.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import attrs
import pytest
import trio
import trio.testing

from browx_actors.kernel.actor_ref import ActorRef
from browx_actors.streams.messages import Acked, DescribeStream, EndStream, FramesMoved, SessionEnding
from browx_actors.streams.outlet import Outlet
from browx_actors.streams.request import ViewRequest
from browx_actors.streams.source import SourceFailed, SourceGone
from browx_actors.streams.stepdown import LOST_AFTER, STALL_AFTER, level_table
from browx_actors.streams.stream import LiveViewStream
from live_support import NO_PAGE, FakeSession, FakeSource, Wire, jpeg
from polling import poll_until

PROMPT = 1 / 64  # a prompt daemon's ack delay


@attrs.define
class Harness:
    stream: LiveViewStream
    ref: ActorRef
    wire: Wire
    session: FakeSession
    nursery: trio.Nursery

    def acking(self, delay: Callable[[dict[str, Any]], float | None]) -> None:
        self.nursery.start_soon(self.wire.ack, self.ref, delay)

    async def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = await self.ref.call(DescribeStream())
        return described

    async def ended(self) -> None:
        await poll_until(lambda: not self.ref.alive, interval=0.01, timeout=120)


@asynccontextmanager
async def running(*answers: Any, request: ViewRequest | None = None) -> AsyncIterator[Harness]:
    wire = Wire()
    async with trio.open_nursery() as nursery:
        session = FakeSession(*answers)
        session_ref = await nursery.start(session.run)
        outlet = Outlet(wire.write, generation=1)
        nursery.start_soon(outlet.run)
        stream = LiveViewStream(request or ViewRequest("default"), session_ref, outlet, seqs=itertools.count(1))
        ref = await nursery.start(stream.run)
        yield Harness(stream, ref, wire, session, nursery)
        nursery.cancel_scope.cancel()


def types(wire: Wire) -> list[str]:
    """The line types in order, each run of frame parts as one ``frame``."""
    out: list[str] = []
    for _, line in wire.lines:
        if line["type"] != "frame" or line["part"] == 0:
            out.append(line["type"])
    return out


# -- frames flowing ---------------------------------------------------------------------------------


async def test_the_view_starts_and_frames_flow_at_the_requested_rate(
        autojump_clock: trio.testing.MockClock) -> None:
    source = FakeSource()  # a page repainting 32 times a second
    async with running(source) as h:
        h.acking(lambda frame: PROMPT)
        start = trio.current_time()
        await trio.sleep(10)
        frames = h.wire.frames()
        assert h.wire.of("view.started") == [{"v": 1, "type": "view.started", "session": "default",
                                              "format": "jpeg", "maxFps": 5, "maxWidth": 960, "quality": 60}]
        assert types(h.wire)[0] == "view.started"
        assert 49 <= len(frames) <= 51  # 5 a second for 10 s
        assert [frame["seq"] for _, frame in frames] == list(range(1, len(frames) + 1))
        assert {(frame["width"], frame["height"]) for _, frame in frames} == {(960, 540)}
        gaps = [b - a for (a, _), (b, _) in itertools.pairwise(frames)]
        assert min(gaps) >= 0.2 - 0.05 and max(gaps) <= 0.2 + 1 / 32 + 1e-9
        stats = await h.describe()
        assert stats["level"] == 0 and stats["frames"]["dropped"] == {} and stats["frames"]["lost"] == 0
        assert stats["frames"]["sent"] == len(frames) and stats["frames"]["paced"] > 200
        assert stats["rttMs"] == pytest.approx(PROMPT * 1000)
        assert stats["source"] == "fake page" and stats["write"]["framesWritten"] == len(frames)
        assert trio.current_time() - start == 10


async def test_a_frame_goes_out_as_parts_that_join_into_the_sources_jpeg(
        autojump_clock: trio.testing.MockClock) -> None:
    request = ViewRequest("default", max_width=640, quality=80)
    async with running(FakeSource(busy=True, as_bytes=True), request=request) as h:
        last = await h.wire.wait_for(lambda line: line["type"] == "frame" and line["part"] == line["parts"] - 1)
        parts = [line for _, line in h.wire.lines if line["type"] == "frame" and line["seq"] == last["seq"]]
        assert len(parts) == parts[0]["parts"] > 1
        assert [p["part"] for p in parts] == list(range(len(parts)))
        assert b"".join(base64.b64decode(p["data"]) for p in parts) == jpeg(640, busy=True)
        assert {(p["width"], p["height"]) for p in parts} == {(640, 360)}


async def test_a_paced_source_is_asked_for_frames_only_when_they_are_due(
        autojump_clock: trio.testing.MockClock) -> None:
    source = FakeSource(paced=True)  # sleeps until the stream wants its next frame
    async with running(source) as h:
        h.acking(lambda frame: PROMPT)
        await trio.sleep(10)
        stats = await h.describe()
        assert stats["frames"]["paced"] == 0 and 49 <= stats["frames"]["sent"] <= 51


# -- the windows and timeouts ------------------------------------------------------------------


async def test_a_frame_unacked_for_5_s_is_lost_and_frees_the_slot(
        autojump_clock: trio.testing.MockClock) -> None:
    async with running(FakeSource()) as h:
        h.acking(lambda frame: None if frame["seq"] == 1 else PROMPT)
        first = await h.wire.wait_for(lambda line: line["type"] == "frame")
        sent_at = next(at for at, line in h.wire.lines if line is first)
        await trio.sleep_until(sent_at + LOST_AFTER - 0.01)
        before = await h.describe()
        assert before["frames"]["lost"] == 0 and len(h.wire.frames()) == 1  # every due frame dropped meanwhile
        assert before["frames"]["dropped"]["in-flight"] > 0
        await trio.sleep_until(sent_at + LOST_AFTER + 1)
        after = await h.describe()
        assert after["frames"]["lost"] == 1
        second_at, second = h.wire.frames()[1]
        assert second["seq"] == 2 and sent_at + LOST_AFTER <= second_at <= sent_at + LOST_AFTER + 1


async def test_no_ack_for_30_s_ends_the_stream_stalled(
        autojump_clock: trio.testing.MockClock) -> None:
    async with running(FakeSource()) as h:
        h.acking(lambda frame: None)
        await h.ended()
        (first_at, _), *_ = h.wire.frames()
        stopped_at, stopped = h.wire.lines[-1]
        assert stopped == {"v": 1, "type": "view.stopped", "session": "default", "reason": "stalled"}
        assert stopped_at == pytest.approx(first_at + STALL_AFTER, abs=1e-9)
        assert types(h.wire)[-1] == "view.stopped" and types(h.wire).count("view.stopped") == 1


async def test_a_2_s_window_that_drops_40_percent_steps_down_and_restarts_the_source_smaller(
        autojump_clock: trio.testing.MockClock) -> None:
    source = FakeSource()
    table = level_table(5, 960)
    async with running(source) as h:
        start = trio.current_time()
        h.acking(lambda frame: 0.3)  # every other due frame at 5 fps finds its predecessor unacked
        await trio.sleep(1.99)
        assert [run.max_width for run in source.runs] == [960]
        await trio.sleep(0.02)
        assert [run.max_width for run in source.runs] == [960, 867]  # one step, once the first window is whole
        assert source.runs[1].fps == table[1].fps and source.runs[1].quality == 60
        await trio.sleep(10)
        # 0.3 s acks still drop at level 1 (3.3 fps); level 2 (2.2 fps) has room for them.
        assert [run.max_width for run in source.runs] == [960, 867, 784]
        stats = await h.describe()
        assert stats["level"] == 2 and stats["width"] == 784 and stats["restarts"]["level"] == 2
        assert {frame["width"] for at, frame in h.wire.frames() if at > start + 4.5} == {784}


async def test_ten_clean_seconds_with_room_in_the_round_trip_step_back_up(
        autojump_clock: trio.testing.MockClock) -> None:
    source = FakeSource()
    slow = [True]
    async with running(source) as h:
        h.acking(lambda frame: 0.3 if slow[0] else PROMPT)
        await trio.sleep(3)
        assert (await h.describe())["level"] == 1
        slow[0] = False
        last_drop = trio.current_time()  # the 0.3 s acks of frames before now may still drop one
        await trio.sleep(9)
        assert (await h.describe())["level"] == 1  # not ten clean seconds yet
        await trio.sleep(2.5)
        stats = await h.describe()
        assert stats["level"] == 0 and [run.max_width for run in source.runs] == [960, 867, 960]
        assert last_drop + 10 <= trio.current_time()


async def test_frames_that_find_the_socket_backed_up_are_dropped_not_queued(
        autojump_clock: trio.testing.MockClock) -> None:
    async with running(FakeSource()) as h:
        h.acking(lambda frame: PROMPT)
        await h.wire.wait_for(lambda line: line["type"] == "frame")
        h.wire.hold = trio.Event()  # the daemon stops reading: the next frame's write never ends
        await trio.sleep(8)  # its frame is lost at 5 s; every due frame after finds the write in progress
        stats = await h.describe()
        assert stats["write"]["backedUp"] is True and stats["write"]["writeInProgressMs"] >= 7500
        assert stats["frames"]["dropped"]["backed-up"] > 0 and stats["frames"]["lost"] == 1
        written_before = len(h.wire.frames())
        h.wire.hold.set()
        h.wire.hold = None
        await trio.testing.wait_all_tasks_blocked()
        # The one frame in hand goes out; none of the dropped ones was kept.
        assert [frame["seq"] for _, frame in h.wire.frames()[written_before:]] == [2]


async def test_a_page_that_does_not_paint_costs_no_wakeups_and_never_stalls(
        autojump_clock: trio.testing.MockClock) -> None:
    source = FakeSource(interval=3600)  # one frame, then an hour of nothing
    async with running(source) as h:
        h.acking(lambda frame: PROMPT)
        ticks = 0
        after_policy = h.stream._after_policy

        def counted(now: float) -> None:
            nonlocal ticks
            ticks += 1
            after_policy(now)

        h.stream._after_policy = counted  # type: ignore[method-assign]
        await trio.sleep(600)
        assert h.ref.alive and ticks <= 3  # the ack, and nothing to wake for after it


# -- following the session ------------------------------------------------------------------------


async def test_the_stream_follows_the_sessions_current_tab(
        autojump_clock: trio.testing.MockClock) -> None:
    first, second = FakeSource(name="tab 1"), FakeSource(name="tab 2")
    async with running(first, second) as h:
        h.acking(lambda frame: PROMPT)
        await trio.sleep(1)
        await h.session.tell(FramesMoved())  # select_tab: the tools act on another tab now
        await trio.sleep(1)
        assert not first.running and second.running and second.delivered > 0
        stats = await h.describe()
        assert stats["source"] == "tab 2" and stats["restarts"]["follow"] == 1
        assert types(h.wire).count("view.started") == 1 and h.session.asks == 2


async def test_a_source_whose_page_went_away_asks_the_session_again(
        autojump_clock: trio.testing.MockClock) -> None:
    first, second = FakeSource(name="tab 1"), FakeSource(name="tab 2")
    async with running(first, second, NO_PAGE) as h:
        h.acking(lambda frame: PROMPT)
        await trio.sleep(1)
        first.end_with(SourceGone("target detached"))  # the current tab closed: tab 2 is current now
        await trio.sleep(1)
        assert second.running and (await h.describe())["source"] == "tab 2"
        second.end_with(SourceGone("target detached"))  # and the last page closed
        await h.ended()
        assert h.wire.lines[-1][1]["reason"] == "page-closed"


async def test_a_page_that_keeps_going_away_counts_as_closed(
        autojump_clock: trio.testing.MockClock) -> None:
    flaky = FakeSource()
    async with running(flaky) as h:
        await h.wire.wait_for(lambda line: line["type"] == "frame")
        flaky.fail_start = SourceGone("the tab is closing")
        flaky.end_with(SourceGone("target detached"))
        await h.ended()
        assert h.wire.lines[-1][1]["reason"] == "page-closed" and h.session.asks <= 4


@pytest.mark.parametrize(("end", "reason"), [
    ("session-ending", "session-closed"),
    ("session-gone", "session-closed"),
    ("session-crashed", "session-closed"),
    ("source-failed", "source-error"),
    ("daemon", "daemon"),
    ("stopped", "channel-closed"),
])
async def test_each_way_a_running_view_ends(autojump_clock: trio.testing.MockClock, end: str, reason: str) -> None:
    source = FakeSource()
    async with running(source) as h:
        h.acking(lambda frame: PROMPT)
        await trio.sleep(1)
        if end == "session-ending":
            await h.session.tell(SessionEnding())
        elif end == "session-gone":
            h.session.stop()
            source.end_with(SourceGone("the browser went away"))
        elif end == "session-crashed":
            h.session.stop()  # gone without telling its watchers; the page still paints
        elif end == "source-failed":
            source.end_with(SourceFailed("Page.startScreencast failed"))
        elif end == "daemon":
            await h.ref.cast(EndStream("daemon"))
        else:
            h.stream.stop()  # the supervisor stops it without a word: the server is shutting down
        await h.ended()
        assert not source.running
        assert h.wire.lines[-1][1] == {"v": 1, "type": "view.stopped", "session": "default", "reason": reason}
        assert types(h.wire).count("view.stopped") == 1


async def test_a_replaced_stream_ends_without_a_word(
        autojump_clock: trio.testing.MockClock) -> None:
    async with running(FakeSource()) as h:
        await trio.sleep(1)
        await h.ref.cast(EndStream(None))
        await h.ended()
        assert "view.stopped" not in types(h.wire) and h.wire.lines[-1][1]["type"] == "frame"


@pytest.mark.parametrize(("answer", "code"), [
    (None, "view-unsupported"),
    (NO_PAGE, "view-failed"),
    ("gone", "unknown-session"),
    ("fails", "view-failed"),
])
async def test_a_view_that_cannot_start_answers_one_error(autojump_clock: trio.testing.MockClock, answer: Any,
                                                         code: str) -> None:
    if answer == "fails":
        answer = FakeSource()
        answer.fail_start = SourceFailed("Page.startScreencast failed")
    wire = Wire()
    async with trio.open_nursery() as nursery:
        session = FakeSession(answer)
        session_ref = await nursery.start(session.run)
        if answer == "gone":
            session.stop()  # closed between the supervisor's lookup and the stream's question
            await trio.testing.wait_all_tasks_blocked()
        outlet = Outlet(wire.write, generation=1)
        nursery.start_soon(outlet.run)
        stream = LiveViewStream(ViewRequest("default"), session_ref, outlet, seqs=itertools.count(1))
        ref = await nursery.start(stream.run)
        with trio.fail_after(10):
            await outlet.done.wait()
        assert [line for _, line in wire.lines] == [
            {"v": 1, "type": "error", "code": code, "error": wire.lines[0][1]["error"], "session": "default"}]
        await trio.testing.wait_all_tasks_blocked()
        assert not ref.alive
        nursery.cancel_scope.cancel()


async def test_a_frame_too_large_for_16_parts_is_dropped_and_steps_the_stream_down(
        autojump_clock: trio.testing.MockClock) -> None:
    request = ViewRequest("default", max_width=1280, quality=80)
    async with running(FakeSource(busy=True), request=request) as h:
        h.acking(lambda frame: PROMPT)
        await trio.sleep(1.5)
        assert h.wire.frames() == []  # a noisy 1280 px JPEG needs more than 16 parts
        await trio.sleep(20)
        stats = await h.describe()
        assert stats["frames"]["dropped"]["too-large"] > 0 and stats["level"] > 0
        assert h.wire.frames() and all(frame["parts"] <= 16 for _, frame in h.wire.frames())


async def test_an_outlet_whose_link_is_gone_ends_the_stream_channel_down(
        autojump_clock: trio.testing.MockClock) -> None:
    async with running(FakeSource()) as h:
        h.acking(lambda frame: PROMPT)
        await trio.sleep(1)
        h.wire.broken = True  # the next write fails: the socket dropped
        await h.ended()
        assert "view.stopped" not in types(h.wire)
        assert h.stream.outlet.dead


async def test_an_ack_for_another_frame_is_ignored(
        autojump_clock: trio.testing.MockClock) -> None:
    async with running(FakeSource()) as h:
        frame = await h.wire.wait_for(lambda line: line["type"] == "frame")
        await h.ref.cast(Acked(frame["seq"] + 7))
        await h.ref.cast(Acked(frame["seq"]))
        await h.ref.cast(Acked(frame["seq"]))
        stats = await h.describe()
        assert stats["frames"]["acked"] == 1
