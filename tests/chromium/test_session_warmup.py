"""When the session warms Playwright's selectors: only after a navigation, only once the
session has been idle, never in front of a call the agent made. MockClock, no browser."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from browx_actors.sessions.chromium.session import WARM_IDLE_S, ChromiumSession


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
    session = ChromiumSession("s", pool=lambda: None, driver=driver)  # type: ignore[arg-type]
    session._nursery = nursery
    page = object()
    session.tabs.add(page)
    return session, driver.bridge, page


async def test_warms_once_the_session_has_been_idle_after_a_navigation(autojump_clock):
    async with trio.open_nursery() as nursery:
        session, bridge, page = await _session(nursery)
        session._warm_when_idle()
        await trio.sleep(1)
        assert bridge.spawned == []  # no navigation yet: nothing to warm

        session.navigations = 1
        session._warm_when_idle()
        await trio.sleep(WARM_IDLE_S * 0.9)
        assert bridge.spawned == []
        await trio.sleep(WARM_IDLE_S * 0.2)
        assert bridge.spawned == [("_warm_selectors", page)]
        session._warm_when_idle()  # the same document: not again
        await trio.sleep(1)
        assert len(bridge.spawned) == 1


async def test_a_call_that_comes_first_goes_first(autojump_clock):
    async with trio.open_nursery() as nursery:
        session, bridge, page = await _session(nursery)
        session.navigations = 1
        session._warm_when_idle()
        await trio.sleep(WARM_IDLE_S / 2)
        session._calls += 1  # the agent's next call starts before the session went idle
        await trio.sleep(1)
        assert bridge.spawned == []
        session._warm_when_idle()  # that call ended: idle from here
        await trio.sleep(WARM_IDLE_S * 1.1)
        assert bridge.spawned == [("_warm_selectors", page)]
