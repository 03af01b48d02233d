"""The asyncio bridge Playwright runs on: results, errors and cancellation across loops."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest
import trio

from browx_actors.sessions.chromium.bridge.aiobridge import open_asyncio_thread


async def test_results_errors_and_the_thread() -> None:
    async with open_asyncio_thread() as bridge:
        async def where(x: int) -> tuple[int, str]:
            await asyncio.sleep(0)
            return x * 2, threading.current_thread().name

        assert await bridge.run(where, 21) == (42, "browx-asyncio")

        async def boom() -> None:
            raise ValueError("from asyncio")

        with pytest.raises(ValueError, match="from asyncio"):
            await bridge.run(boom)


async def test_trio_cancellation_cancels_the_asyncio_task_and_waits_for_it() -> None:
    events: list[str] = []
    async with open_asyncio_thread() as bridge:
        async def slow() -> None:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                events.append("asyncio cancelled")
                raise

        with trio.move_on_after(0.2) as scope:
            await bridge.run(slow)
        assert scope.cancelled_caught
        # The Trio side returned only after the asyncio side had unwound.
        assert events == ["asyncio cancelled"]
        assert await bridge.run(asyncio.sleep, 0, "still serving") == "still serving"


async def test_many_concurrent_calls() -> None:
    async with open_asyncio_thread() as bridge:
        results: list[int] = []

        async def one(i: int) -> None:
            results.append(await bridge.run(asyncio.sleep, 0.01, i))

        async with trio.open_nursery() as nursery:
            for i in range(50):
                nursery.start_soon(one, i)
        assert sorted(results) == list(range(50))


async def test_spawn_runs_detached_and_drops_failures_quietly() -> None:
    ran: list[str] = []
    unhandled: list[dict] = []
    async with open_asyncio_thread() as bridge:
        bridge._loop.call_soon_threadsafe(
            bridge._loop.set_exception_handler, lambda loop, ctx: unhandled.append(ctx)
        )
        gate = asyncio.Event()

        async def waits() -> None:
            await gate.wait()
            ran.append("after the gate")

        async def fails() -> None:
            ran.append("failing")
            raise RuntimeError("nobody is waiting for this")

        bridge.spawn(waits)
        bridge.spawn(fails)

        async def open_gate() -> int:
            gate.set()
            for _ in range(20):  # a few loop turns: the waiter wakes, ends, is dropped
                if not bridge._detached:
                    break
                await asyncio.sleep(0)
            return len(bridge._detached)

        # spawn returned before waits() could finish; the bridge holds it until done.
        assert await bridge.run(open_gate) == 0
        gc.collect()  # an unretrieved task exception would be reported here
    assert ran == ["failing", "after the gate"]
    assert unhandled == []
