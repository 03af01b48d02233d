"""The Playwright driver: one Playwright instance on the asyncio bridge thread.

Playwright is the action core (locators, actionability, fill, the mouse pipeline); it
runs on the :class:`~.aiobridge.AsyncioThread` and attaches to browsers the pool
launched with ``connect_over_cdp``. It is started on first use, so a runtime that never
opens a browser session never starts the Playwright driver process.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

import trio
from playwright.async_api import Browser, BrowserContext, Playwright

from ..agent.pageagent import AGENT_KEY
from .aiobridge import AsyncioThread

#: Selector engine name: ``browxref=e12`` resolves a snapshot ref through the page
#: agent, so actions by ref are one Playwright locator call with full actionability.
REF_ENGINE = "browxref"

_REF_ENGINE_SOURCE = f"""{{
  query(root, ref) {{
    const agent = window[{AGENT_KEY!r}];
    const el = agent ? agent.resolve(ref) : null;
    return el && (root === document || root.contains(el)) ? el : null;
  }},
  queryAll(root, ref) {{
    const el = this.query(root, ref);
    return el ? [el] : [];
  }}
}}"""


class PlaywrightDriver:
    def __init__(self, bridge: AsyncioThread) -> None:
        self.bridge = bridge
        self._playwright: Playwright | None = None
        #: Stops the driver process once it started (``Playwright.stop``).
        self._stop: Callable[[], Awaitable[None]] | None = None
        self._lock = trio.Lock()

    async def _ensure_started(self) -> Playwright:
        async with self._lock:
            if self._playwright is None:
                from playwright.async_api import async_playwright

                playwright = await self.bridge.run(async_playwright().start)
                self._stop = playwright.stop
                # Engines register before any context exists; every page gets it.
                await self.bridge.run(
                    functools.partial(playwright.selectors.register, REF_ENGINE, script=_REF_ENGINE_SOURCE)
                )
                self._playwright = playwright
        return self._playwright

    async def connect_over_cdp(self, ws_url: str, *, timeout_ms: float = 30_000) -> Browser:
        """A Playwright ``Browser`` attached to the Chromium behind ``ws_url``: one the
        pool launched, or the relay of an attach (``cdp/relay.py``), which holds the
        endpoint's credentials itself."""
        playwright = await self._ensure_started()
        connect = functools.partial(playwright.chromium.connect_over_cdp, ws_url, timeout=timeout_ms)
        return await self.bridge.run(connect)

    async def launch_persistent_context(self, user_data_dir: str, **options: object) -> BrowserContext:
        """Playwright's own Chromium on the profile ``user_data_dir``, and its default
        context made with ``options`` (``chromium/persistent.py``)."""
        playwright = await self._ensure_started()
        # As Callable[..., ...]: the options are new_context's keywords, built by name.
        launch: Callable[..., Awaitable[BrowserContext]] = playwright.chromium.launch_persistent_context
        context: BrowserContext = await self.bridge.run(functools.partial(launch, user_data_dir, **options))
        return context

    async def aclose(self) -> None:
        if self._stop is not None:
            stop, self._stop, self._playwright = self._stop, None, None
            with trio.move_on_after(5):
                await self.bridge.run(stop)
