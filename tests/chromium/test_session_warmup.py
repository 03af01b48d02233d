"""When the session warms Playwright's selectors: only after a navigation (or in a tab new
to the tools), only once the session has been idle, never in front of a call the agent
made. MockClock, no browser."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from browx_actors.sessions.chromium.session import ChromiumSession
from browx_actors.sessions.chromium.table import TABLE
from browx_actors.sessions.chromium.warmup import WARM_IDLE_S


class FakeBridge:
    def __init__(self) -> None:
        self.spawned: list[tuple[Any, ...]] = []

    def spawn(self, fn: Any, *args: Any) -> None:
        self.spawned.append((fn.__name__, *args))


class FakeDriver:
    def __init__(self) -> None:
        self.bridge = FakeBridge()


async def _session(nursery: trio.Nursery) -> tuple[ChromiumSession, FakeBridge, object]:
    driver = FakeDriver()
    session = ChromiumSession("s", table=TABLE, pool=lambda: None, driver=driver)  # type: ignore[arg-type]
    session._nursery = nursery
    page = object()
    session.tabs.add(page)
    return session, driver.bridge, page


async def test_warms_once_the_session_has_been_idle_after_a_navigation(autojump_clock):
    async with trio.open_nursery() as nursery:
        session, bridge, page = await _session(nursery)
        session.warmup.call_ended()
        await trio.sleep(1)
        assert bridge.spawned == []  # no navigation yet: nothing to warm

        session.navigations = 1
        session.warmup.call_ended()
        await trio.sleep(WARM_IDLE_S * 0.9)
        assert bridge.spawned == []
        await trio.sleep(WARM_IDLE_S * 0.2)
        assert bridge.spawned == [("_warm_selectors", page)]
        session.warmup.call_ended()  # the same document: not again
        await trio.sleep(1)
        assert len(bridge.spawned) == 1


async def test_a_call_that_comes_first_goes_first(autojump_clock):
    async with trio.open_nursery() as nursery:
        session, bridge, page = await _session(nursery)
        session.navigations = 1
        session.warmup.call_ended()
        await trio.sleep(WARM_IDLE_S / 2)
        session.warmup.call_started()  # the agent's next call starts before the session went idle
        await trio.sleep(1)
        assert bridge.spawned == []
        session.warmup.call_ended()  # that call ended: idle from here
        await trio.sleep(WARM_IDLE_S * 1.1)
        assert bridge.spawned == [("_warm_selectors", page)]


async def test_a_tab_new_to_the_tools_is_warmed_without_a_navigation(autojump_clock):
    async with trio.open_nursery() as nursery:
        session, bridge, page = await _session(nursery)
        session.warmup.new_tab()  # attach_current wired the current tab
        session.warmup.call_ended()
        await trio.sleep(WARM_IDLE_S * 1.1)
        assert bridge.spawned == [("_warm_selectors", page)]
