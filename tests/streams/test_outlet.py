"""The outlet: a stream's lines in order, at most one frame at a time, and what its writes cost."""

from __future__ import annotations

import trio
import trio.testing

from browx_actors.streams.outlet import Outlet, percentile
from live_support import Wire


def line(kind: str, **fields: object) -> bytes:
    import json

    return json.dumps({"v": 1, "type": kind, **fields}).encode() + b"\n"


FRAME = line("frame", seq=1, part=0, parts=2, data="AAAA") + line("frame", seq=1, part=1, parts=2, data="BBBB")


async def test_lines_go_out_in_order_and_a_second_frame_waits_for_none(
        autojump_clock: trio.testing.MockClock) -> None:
    wire = Wire()
    wire.hold = trio.Event()
    outlet = Outlet(wire.write, generation=3)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outlet.run)
        outlet.send_line(line("view.started", session="a"))
        assert outlet.offer_frame(FRAME, arrived=trio.current_time())
        assert outlet.backed_up
        assert not outlet.offer_frame(FRAME, arrived=trio.current_time())  # refused, not queued
        outlet.send_line(line("view.stopped", session="a", reason="daemon"))
        await trio.sleep(2)
        assert wire.lines == [] and outlet.statistics()["writeInProgressMs"] == 2000
        wire.hold.set()
        outlet.close()
        await outlet.done.wait()
    assert [(entry["type"], entry.get("part")) for _, entry in wire.lines] == [
        ("view.started", None), ("frame", 0), ("frame", 1), ("view.stopped", None)]
    stats = outlet.statistics()
    assert stats["framesWritten"] == 1 and stats["linesWritten"] == 4 and not stats["backedUp"]
    assert stats["latencyMs"]["median"] == 2000 and stats["writeMs"]["max"] == 2000
    assert not outlet.dead and outlet.generation == 3


async def test_a_failed_write_kills_the_outlet_and_it_takes_nothing_more(
        autojump_clock: trio.testing.MockClock) -> None:
    wire = Wire()
    wire.broken = True
    outlet = Outlet(wire.write, generation=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outlet.run)
        outlet.send_line(line("view.started", session="a"))
        await outlet.done.wait()
    assert outlet.dead and not outlet.open and not outlet.backed_up
    assert not outlet.offer_frame(FRAME, arrived=0.0)


async def test_a_writer_cancelled_with_its_link_is_dead(
        autojump_clock: trio.testing.MockClock) -> None:
    outlet = Outlet(Wire().write, generation=1)
    async with trio.open_nursery() as link:
        link.start_soon(outlet.run)
        await trio.testing.wait_all_tasks_blocked()
        link.cancel_scope.cancel()
    assert outlet.dead and outlet.done.is_set()
    assert not outlet.offer_frame(FRAME, arrived=0.0)


def test_percentiles_by_nearest_rank() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 0.95) == 95.0
