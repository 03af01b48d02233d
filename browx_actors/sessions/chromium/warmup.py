"""When a chromium session warms Playwright's selectors: after a navigation, once idle.

Playwright builds its injected script on first use in each document, which costs the
first locator action after a navigation 50-70 ms on a 2-core host. Built while the
agent's model reads the last answer, it costs nothing; built at once, it would only
make the next call wait behind it in the renderer (a snapshot, say). So
:class:`SelectorWarmup` builds it once the session has been idle for
:data:`WARM_IDLE_S` after a call that saw a navigation (or wired a tab new to the
tools): a call that comes sooner goes first, and an action that comes sooner builds it
itself, as it would have anyway.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import trio
from playwright.async_api import Page

if TYPE_CHECKING:
    from .host import SessionHost

__all__ = ["WARM_IDLE_S", "SelectorWarmup"]

#: Idle time after a navigating call before Playwright's selectors are warmed.
WARM_IDLE_S = 0.05


class SelectorWarmup:
    """One session's warm-up: the session says when a call starts and when it ended."""

    def __init__(self, session: SessionHost) -> None:
        self._session = session
        #: ``navigations`` when Playwright's selector machinery was last warmed.
        self._warmed_at = 0
        #: Calls started so far, so the idle timer can tell whether one came meanwhile.
        self._calls = 0

    def call_started(self) -> None:
        self._calls += 1

    def new_tab(self) -> None:
        """A tab new to the tools (just wired) gets the warm-up after this call too."""
        self._warmed_at = -1

    def call_ended(self) -> None:
        """After a call that saw a navigation, warm the new document once the session
        has been idle for :data:`WARM_IDLE_S`."""
        session = self._session
        if session.page is not None and session.navigations != self._warmed_at:
            session.nursery.start_soon(self._after_idle, self._calls, session.navigations)

    async def _after_idle(self, calls: int, navigations: int) -> None:
        await trio.sleep(WARM_IDLE_S)
        session = self._session
        if self._calls == calls and session.navigations == navigations and session.page is not None:
            self._warmed_at = navigations
            session.driver.bridge.spawn(_warm_selectors, session.page)


async def _warm_selectors(page: Page) -> None:
    # A failure here (the page navigated on or closed) is for the next action to meet.
    with contextlib.suppress(Exception):
        await page.locator(":root").count()
