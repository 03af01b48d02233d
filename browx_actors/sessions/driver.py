"""The Playwright driver: one Playwright instance on the asyncio bridge thread.

Playwright is the action core (locators, actionability, fill, the mouse pipeline); it
runs on the :class:`~browx_actors.sessions.aiobridge.AsyncioThread` and attaches to
browsers the pool launched with ``connect_over_cdp``. It is started on first use, so a
runtime that never opens a browser session never starts the Playwright driver process.
"""

from __future__ import annotations

import functools
from typing import Any

import trio

from .aiobridge import AsyncioThread


class PlaywrightDriver:
    def __init__(self, bridge: AsyncioThread) -> None:
        self.bridge = bridge
        self._playwright: Any = None
        self._manager: Any = None
        self._lock = trio.Lock()

    async def _ensure_started(self) -> Any:
        async with self._lock:
            if self._playwright is None:
                from playwright.async_api import async_playwright

                self._manager = async_playwright()
                self._playwright = await self.bridge.run(self._manager.start)
        return self._playwright

    async def connect_over_cdp(self, ws_url: str, *, timeout_ms: float = 30_000) -> Any:
        """A Playwright ``Browser`` attached to the Chromium behind ``ws_url``."""
        playwright = await self._ensure_started()
        connect = functools.partial(playwright.chromium.connect_over_cdp, ws_url, timeout=timeout_ms)
        return await self.bridge.run(connect)

    async def aclose(self) -> None:
        if self._manager is not None:
            manager, self._manager, self._playwright = self._manager, None, None
            with trio.move_on_after(5):
                await self.bridge.run(manager.__aexit__, None, None, None)
