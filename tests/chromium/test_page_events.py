"""What a session records from page events: the console log, requests in flight and the
pulse waiters on the Playwright thread wake on (plain asyncio, no browser)."""

from __future__ import annotations

import asyncio

import attrs
from playwright.async_api import Error as PlaywrightError

from browx_actors.sessions.chromium.page_events import ConsoleLog, Pulse, RequestTracker


@attrs.define
class _Frame:
    parent_frame: object = None


@attrs.define(eq=False)  # hashable by identity, as Playwright's requests are
class _Request:
    navigation: bool = False
    frame_: object = attrs.Factory(_Frame)

    def is_navigation_request(self) -> bool:
        return self.navigation

    @property
    def frame(self) -> object:
        if self.frame_ is None:
            raise PlaywrightError("Service Worker requests do not have an associated frame.")
        return self.frame_


def test_a_pulse_wakes_a_waiter_to_recheck_and_times_out_without_sleeping() -> None:
    async def scenario() -> tuple[bool, bool, bool]:
        pulse, state = Pulse(), {"done": False}

        async def finish() -> None:
            await asyncio.sleep(0)
            pulse.fire()  # a pulse while the condition is still false: back to waiting
            await asyncio.sleep(0)
            state["done"] = True
            pulse.fire()

        task = asyncio.get_running_loop().create_task(finish())
        woke = await pulse.wait_until(lambda: state["done"], timeout=30)
        await task
        already = await pulse.wait_until(lambda: True, timeout=0)
        never = await pulse.wait_until(lambda: False, timeout=0)
        return woke, already, never

    assert asyncio.run(scenario()) == (True, True, False)


def test_requests_in_flight_and_main_frame_navigations_that_ended() -> None:
    async def scenario() -> tuple[int, int, bool]:
        pulse = Pulse()
        tracker = RequestTracker(pulse)
        fetch, page_nav = _Request(), _Request(navigation=True)
        frame_nav = _Request(navigation=True, frame_=_Frame(parent_frame=object()))
        worker = _Request(navigation=True, frame_=None)
        for request in (fetch, page_nav, frame_nav, worker):
            tracker.on_request(request)
        idle = asyncio.get_running_loop().create_task(tracker.wait_idle(30))
        await asyncio.sleep(0)
        for request in (fetch, page_nav, frame_nav, worker):
            tracker.on_done(request)
        return tracker.started, tracker.navigations_ended, await idle

    # Four started; only the main frame's navigation request counts as one that ended.
    assert asyncio.run(scenario()) == (4, 1, True)


def test_the_console_log_keeps_the_newest_and_reads_by_sequence() -> None:
    log = ConsoleLog(maxlen=3)
    for i in range(5):
        log.append({"type": "error" if i % 2 else "log", "text": str(i)})
    assert log.last_seq == 5
    assert [e["text"] for e in log.since(0)] == ["2", "3", "4"]
    assert [e["text"] for e in log.since(2, errors_only=True)] == ["3"]
